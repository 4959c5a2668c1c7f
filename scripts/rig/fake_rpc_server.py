#!/usr/bin/env python3
"""A stand-in for passtapd's web listener, for testing clients of the `/rpc` handshake.

    fake_rpc_server.py [--port N] [--name NAME --secret-file F] [--root DIR] [--record F]

Serves `GET /rpc` as a WebSocket (RFC 6455, no extensions) and, with --root, the files of DIR
for every other `GET` (a test page and its vendored passtap.js). Prints `port=N` once it listens.

- Without --secret-file it is the squatter of docs/web.md: a program that took the port and does
  not hold the token. It answers `auth.hello` as passtapd does, with a fresh nonce and a proof made
  with a random key, and refuses anything after it (`auth_failed`, then close). A client must
  close without sending `auth.prove`.
- With --name and --secret-file (the token file's line) it holds that token: its proof is right,
  it checks the client's, answers `auth.prove` with `{"token": NAME, "roles": ["observe","read"]}`
  and `events.subscribe` with a fixed instance, `oldest_seq` 1 and `next_seq` 1; other methods get
  `method_not_found`. Enough for a client to complete the handshake and subscribe.
- --record F appends one JSON line per connection (`{"connection": I, "path": P}`) and per text
  message received (`{"connection": I, "message": TEXT}`), so a test can see what a client sent.

Its handshake arithmetic (`proof`) is the spec's (docs/web.md, "The handshake"); the known-answer
vector is checked in scripts/bench/test_web_handshake.py. Test tooling only, never a server.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import re
import secrets
import select
import socketserver
import struct
import subprocess
import sys
import threading

LABELS = {"server": b"passtap-web-auth-1 server", "client": b"passtap-web-auth-1 client"}
WEBSOCKET_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
HEX_64 = re.compile(r"^[0-9a-fA-F]{64}$")
MAX_MESSAGE = 64 * 1024
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}
INSTANCE = "00000000-0000-4000-8000-000000000029"


def proof(secret, direction, name, client_nonce, server_nonce):
    """HMAC-SHA256(secret, label 0x00 name 0x00 client_nonce server_nonce), lowercase hex."""
    message = LABELS[direction] + b"\0" + name.encode() + b"\0" + client_nonce + server_nonce
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


class Connection:
    """One WebSocket: reads masked client frames, writes unmasked ones."""

    def __init__(self, stream):
        self.stream = stream

    def read_exact(self, count):
        data = self.stream.read(count)
        if data is None or len(data) < count:
            raise EOFError
        return data

    def receive(self):
        """The next text message, or None at a close frame (answered) or a frame it does not take."""
        while True:
            first, second = self.read_exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self.read_exact(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self.read_exact(8))[0]
            if not second & 0x80 or length > MAX_MESSAGE or not first & 0x80:
                self.close(1002)
                return None
            mask = self.read_exact(4)
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(self.read_exact(length)))
            opcode = first & 0x0F
            if opcode == 1:
                return payload.decode("utf-8", "replace")
            if opcode == 9:
                self.send_frame(10, payload)
            elif opcode == 8:
                self.close(1000)
                return None
            elif opcode != 10:
                self.close(1003)
                return None

    def send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        if len(payload) < 126:
            header += bytes([len(payload)])
        else:
            header += bytes([126]) + struct.pack("!H", len(payload))
        self.stream.write(header + payload)
        self.stream.flush()

    def send(self, message):
        self.send_frame(1, json.dumps(message, separators=(",", ":")).encode())

    def close(self, code):
        try:
            self.send_frame(8, struct.pack("!H", code))
        except OSError:
            pass


def error(request_id, code, reason, message):
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message, "data": {"reason": reason}}}


class Handshake:
    """The server side of one connection's handshake, as the spec has it."""

    def __init__(self, name, secret):
        self.name, self.secret = name, secret
        self.client_nonce = self.server_nonce = None
        self.authenticated = False
        self.hello_name = None

    def answer(self, request):
        """(answer, close after it)."""
        request_id, method, params = request.get("id"), request.get("method"), request.get("params") or {}
        if method == "auth.hello" and self.server_nonce is None:
            nonce = params.get("nonce", "")
            if params.get("protocol") != 1 or not isinstance(params.get("token"), str) or not HEX_64.match(str(nonce)):
                return error(request_id, -32602, "invalid_params", "bad params for auth.hello"), False
            self.client_nonce, self.server_nonce = bytes.fromhex(nonce), secrets.token_bytes(32)
            holds = self.secret is not None and params["token"] == self.name
            key = self.secret if holds else secrets.token_urlsafe(32)
            self.hello_name = params["token"]
            result = {"protocol": 1, "nonce": self.server_nonce.hex(),
                      "proof": proof(key, "server", params["token"], self.client_nonce, self.server_nonce)}
            return {"jsonrpc": "2.0", "id": request_id, "result": result}, False
        if method == "auth.prove" and self.server_nonce is not None and not self.authenticated:
            expected = None
            if self.secret is not None and self.hello_name == self.name:
                expected = proof(self.secret, "client", self.name, self.client_nonce, self.server_nonce)
            if expected is None or not hmac.compare_digest(str(params.get("proof", "")).lower(), expected):
                return error(request_id, -32018, "auth_failed", "authentication failed"), True
            self.authenticated = True
            return {"jsonrpc": "2.0", "id": request_id, "result": {"token": self.name, "roles": ["observe", "read"]}}, False
        if not self.authenticated:
            if method in ("auth.hello", "auth.prove"):
                return error(request_id, -32018, "auth_failed", "authentication failed"), True
            return error(request_id, -32017, "unauthenticated", "authenticate first: auth.hello, auth.prove"), False
        if method == "events.subscribe":
            return {"jsonrpc": "2.0", "id": request_id, "result": {"instance": INSTANCE, "oldest_seq": 1, "next_seq": 1}}, False
        return error(request_id, -32601, "method_not_found", "no method %s here" % method), False


class Handler(socketserver.StreamRequestHandler):
    """One TCP connection: a page request, or the upgrade to /rpc and its messages."""

    def handle(self):
        server = self.server
        head = []
        while True:
            line = self.rfile.readline(8192)
            if not line or line in (b"\r\n", b"\n"):
                break
            head.append(line.decode("latin-1").rstrip("\r\n"))
        if not head:
            return
        parts = head[0].split(" ")
        path = parts[1] if len(parts) > 1 else "/"
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in head[1:])}
        if path == "/rpc" and headers.get("upgrade", "").lower() == "websocket" and "sec-websocket-key" in headers:
            self.websocket(path, headers)
        else:
            self.file(path)

    def file(self, path):
        root = self.server.root
        name = os.path.basename(path.split("?")[0]) or "index.html"
        full = os.path.join(root, name) if root else None
        if not full or not os.path.isfile(full):
            self.wfile.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            return
        with open(full, "rb") as f:
            body = f.read()
        content_type = TYPES.get(os.path.splitext(name)[1], "application/octet-stream")
        self.wfile.write(("HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %d\r\nCache-Control: no-store\r\n"
                          "Connection: close\r\n\r\n" % (content_type, len(body))).encode() + body)

    def websocket(self, path, headers):
        server = self.server
        accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + WEBSOCKET_GUID).digest()).decode()
        self.wfile.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
        self.wfile.flush()
        number = server.next_connection()
        server.record({"connection": number, "path": path})
        connection, handshake = Connection(self.connection.makefile("rwb")), Handshake(server.name, server.secret)
        try:
            while True:
                text = connection.receive()
                if text is None:
                    return
                server.record({"connection": number, "message": text})
                try:
                    request = json.loads(text)
                except ValueError:
                    connection.send(error(None, -32700, "parse_error", "not JSON"))
                    continue
                if not isinstance(request, dict):
                    connection.send(error(None, -32600, "invalid_request", "not a request"))
                    continue
                answer, close = handshake.answer(request)
                if request.get("id") is not None:
                    connection.send(answer)
                if close:
                    connection.close(1008)
                    return
        except (EOFError, OSError):
            return


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

    def __init__(self, port, name, secret, root, record_path):
        super().__init__(("127.0.0.1", port), Handler)
        self.name, self.secret, self.root, self.record_path = name, secret, root, record_path
        self.lock = threading.Lock()
        self.connections = 0

    def next_connection(self):
        with self.lock:
            self.connections += 1
            return self.connections

    def record(self, entry):
        if not self.record_path:
            return
        with self.lock, open(self.record_path, "a") as f:
            f.write(json.dumps(entry) + "\n")


def spawn(record, name=None, secret_file=None, root=None, port=0, timeout=10):
    """Starts this script as a process (for tests): (the Popen, its port). Stop it with
    terminate(), then close its stdout."""
    command = [sys.executable, os.path.abspath(__file__), "--record", record, "--port", str(port)]
    if secret_file:
        command += ["--name", name, "--secret-file", secret_file]
    if root:
        command += ["--root", root]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    ready, _, _ = select.select([process.stdout], [], [], timeout)
    line = process.stdout.readline() if ready else ""
    if not line.startswith("port="):
        process.kill()
        process.wait()
        raise RuntimeError("fake_rpc_server.py did not start within %d s (it printed %r)" % (timeout, line))
    return process, int(line[5:])


def recorded(record):
    """The JSON lines `--record` wrote so far: connections and messages."""
    if not os.path.exists(record):
        return []
    with open(record) as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--name", default=None, help="the token's name, with --secret-file")
    parser.add_argument("--secret-file", help="the token file: the server then holds the token")
    parser.add_argument("--root", help="serve this folder's files for GET (not /rpc)")
    parser.add_argument("--record", help="append what clients send to this file (JSON lines)")
    args = parser.parse_args()
    if (args.secret_file is None) != (args.name is None):
        parser.error("--name and --secret-file go together")
    secret = None
    if args.secret_file:
        with open(args.secret_file) as f:
            secret = f.readline().strip()
    server = Server(args.port, args.name, secret, args.root, args.record)
    print("port=%d" % server.server_address[1], flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    sys.exit(main())
