#!/usr/bin/env python3
"""A real HTTPS webhook receiver for the forwarding tests: checks every Standard Webhooks
signature, records what it accepts, and answers as it is told at run time.

  webhook_receiver.py --dir DIR (--secret-file FILE | --secret whsec_...) [--port N]
                      [--tolerance SECONDS] [-v]

At start it makes a throwaway CA and a server certificate for 127.0.0.1 and localhost (ECDSA
P-256, `cryptography`), and listens with TLS on 127.0.0.1:PORT (0: a free port). In DIR:

  ca.pem         the CA's certificate: give it to the sink as `ca_file`
  events.jsonl   one line per accepted event, in order: {"id", "timestamp", "signature", "body"}
                 (written before the 2xx is sent, so a sink that saw 2xx finds its line there)
  attempts.jsonl one line per request: {"id", "timestamp", "status", "valid", "headers", "body"}
  control.sock   line commands, each answered with one JSON line {"ok": true, ...}
  ready          written (JSON: port, url, ca, control, pid) once it listens

Every POST is checked first: a missing header, a timestamp more than --tolerance seconds (default
300, as the Standard Webhooks libraries) from now, or no valid `v1,` signature among the
space-separated ones is answered 401 and counted; nothing else happens to it. A valid request is
then answered as the mode says.

Line commands:
  answer CODE [RETRY-AFTER]  answer every valid request CODE (200 records it; any other code does
                             not), with that Retry-After value (the rest of the line) if given
  refuse ID|all              answer 400 to this event id (or to every one); kept until `reset`
  delay MS                   wait MS milliseconds before answering (0: off)
  down                       stop listening and close open connections (connections are refused)
  up                         listen again on the same port
  reset                      answer 200, no refusals, no delay
  stats                      counts: attempts, accepted, bad_signatures, bad_timestamps, listening
  quit                       stop
"""

import argparse
import base64
import datetime
import hashlib
import hmac
import http.server
import ipaddress
import json
import os
import socket
import socketserver
import ssl
import sys
import threading
import time

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

SECRET_PREFIX = "whsec_"


def secret_key(text):
    """The HMAC key of a `whsec_...` secret: its base64 part, decoded."""
    text = text.strip()
    if not text.startswith(SECRET_PREFIX):
        raise ValueError("a webhook secret starts with whsec_")
    return base64.b64decode(text[len(SECRET_PREFIX):], validate=True)


def sign(key, msg_id, timestamp, body):
    """`v1,` + base64(HMAC-SHA256(key, "id.timestamp.body")), as the sender signs."""
    mac = hmac.new(key, b"%s.%s." % (msg_id.encode(), str(timestamp).encode()) + body, hashlib.sha256)
    return "v1," + base64.b64encode(mac.digest()).decode()


def signature_valid(key, msg_id, timestamp, body, header):
    """Whether one of the space-separated signatures in `header` is the `v1` one of this request
    (compared in constant time)."""
    expected = sign(key, msg_id, timestamp, body).encode()
    return any(hmac.compare_digest(expected, candidate.encode()) for candidate in header.split(" ") if candidate)


def make_certificates(directory):
    """A throwaway CA (written to DIR/ca.pem) and a server certificate for 127.0.0.1 and
    localhost signed by it (DIR/server.pem, DIR/server.key); returns their paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "PassTap test webhook CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True, crl_sign=True,
                                     encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    server = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")]))
        .issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                    x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = {name: os.path.join(directory, name) for name in ("ca.pem", "server.pem", "server.key")}
    with open(paths["ca.pem"], "wb") as f:
        f.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.pem"], "wb") as f:
        f.write(server.public_bytes(serialization.Encoding.PEM))
    with open(paths["server.key"], "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return paths


class Receiver:
    """The receiver's state, its HTTPS listener and its control socket."""

    def __init__(self, directory, key, port=0, tolerance=300, verbose=False):
        self.directory = directory
        self.key = key
        self.tolerance = tolerance
        self.verbose = verbose
        self.lock = threading.Lock()
        self.code, self.retry_after, self.refused, self.refuse_all, self.delay_ms = 200, None, set(), False, 0
        self.counts = {"attempts": 0, "accepted": 0, "bad_signatures": 0, "bad_timestamps": 0}
        self.connections = set()
        paths = make_certificates(directory)
        self.ca_path = paths["ca.pem"]
        self.tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.tls.load_cert_chain(paths["server.pem"], paths["server.key"])
        self.events = open(os.path.join(directory, "events.jsonl"), "a", encoding="utf-8")
        self.attempts = open(os.path.join(directory, "attempts.jsonl"), "a", encoding="utf-8")
        self.server = None
        self.port = port
        self.listen()

    # --- HTTPS ---

    def listen(self):
        """Listens on 127.0.0.1:port (a free port the first time when 0), serving in a thread."""
        receiver = self

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True
            allow_reuse_address = True

            def get_request(self):
                sock, address = self.socket.accept()
                # The TLS handshake runs in the request's thread, at its first read: a client
                # that stalls it holds only its own thread.
                return receiver.tls.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

            def handle_error(self, request, client_address):
                if receiver.verbose:
                    super().handle_error(request, client_address)

        self.server = Server(("127.0.0.1", self.port), Handler)
        self.server.receiver = self
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, name="https", daemon=True).start()

    def stop_listening(self):
        """Closes the listener and every open connection."""
        server, self.server = self.server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        with self.lock:
            connections = list(self.connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def answer(self, msg_id, timestamp, signature, body, headers):
        """(status, extra headers) for one request, after recording it."""
        now = time.time()
        with self.lock:
            self.counts["attempts"] += 1
            valid = False
            if not (msg_id and timestamp and signature) or not timestamp.isdigit():
                status = 401
                self.counts["bad_signatures"] += 1
            elif self.tolerance and abs(now - int(timestamp)) > self.tolerance:
                status = 401
                self.counts["bad_timestamps"] += 1
            elif not signature_valid(self.key, msg_id, timestamp, body, signature):
                status = 401
                self.counts["bad_signatures"] += 1
            else:
                valid = True
                status = 400 if self.refuse_all or msg_id in self.refused else self.code
            extra = {"Retry-After": self.retry_after} if valid and status != 200 and self.retry_after else {}
            text = body.decode("utf-8", "replace")
            self.attempts.write(json.dumps({"id": msg_id, "timestamp": timestamp, "status": status, "valid": valid,
                                            "headers": headers, "body": text}) + "\n")
            self.attempts.flush()
            if status == 200:
                self.counts["accepted"] += 1
                self.events.write(json.dumps({"id": msg_id, "timestamp": timestamp, "signature": signature,
                                              "body": text}) + "\n")
                self.events.flush()
            delay = self.delay_ms
        if delay:
            time.sleep(delay / 1000)
        return status, extra

    # --- control ---

    def control(self, line):
        command, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        with self.lock:
            if command == "answer":
                code, _, retry_after = rest.partition(" ")
                if not code.isdigit() or not 200 <= int(code) <= 599:
                    return {"ok": False, "error": "answer CODE [RETRY-AFTER]: CODE is 200..599"}
                self.code, self.retry_after = int(code), retry_after.strip() or None
                return {"ok": True, "code": self.code, "retry_after": self.retry_after}
            if command == "refuse":
                if not rest:
                    return {"ok": False, "error": "refuse ID|all"}
                if rest == "all":
                    self.refuse_all = True
                else:
                    self.refused.add(rest)
                return {"ok": True, "refused": sorted(self.refused), "all": self.refuse_all}
            if command == "delay":
                if not rest.isdigit():
                    return {"ok": False, "error": "delay MS"}
                self.delay_ms = int(rest)
                return {"ok": True, "delay_ms": self.delay_ms}
            if command == "reset":
                self.code, self.retry_after, self.refused, self.refuse_all, self.delay_ms = 200, None, set(), False, 0
                return {"ok": True}
            if command == "stats":
                return dict({"ok": True, "listening": self.server is not None, "port": self.port}, **self.counts)
        if command == "down":
            self.stop_listening()
            return {"ok": True, "listening": False}
        if command == "up":
            if self.server is None:
                self.listen()
            return {"ok": True, "listening": True, "port": self.port}
        if command == "quit":
            return {"ok": True, "quit": True}
        return {"ok": False, "error": "unknown command %r (answer, refuse, delay, down, up, reset, stats, quit)" % command}

    def serve_control(self, path, ready_path):
        """Serves line commands on the Unix socket `path` until `quit`; writes `ready_path` first."""
        if os.path.exists(path):
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(8)
        ready = {"port": self.port, "url": "https://127.0.0.1:%d/" % self.port, "ca": self.ca_path,
                 "control": path, "pid": os.getpid()}
        with open(ready_path + ".tmp", "w") as f:
            json.dump(ready, f)
        os.rename(ready_path + ".tmp", ready_path)
        print("ready " + json.dumps(ready), flush=True)
        while True:
            client, _ = listener.accept()
            with client, client.makefile("rwb") as stream:
                for raw in stream:
                    try:
                        reply = self.control(raw.decode("utf-8", "replace"))
                    except Exception as error:  # a bad command costs only its answer
                        reply = {"ok": False, "error": str(error)}
                    stream.write((json.dumps(reply) + "\n").encode())
                    stream.flush()
                    if reply.get("quit"):
                        self.stop_listening()
                        return


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def setup(self):
        super().setup()
        with self.server.receiver.lock:
            self.server.receiver.connections.add(self.connection)

    def finish(self):
        try:
            super().finish()
        finally:
            with self.server.receiver.lock:
                self.server.receiver.connections.discard(self.connection)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        headers = {name.lower(): value for name, value in self.headers.items()}
        status, extra = self.server.receiver.answer(
            self.headers.get("webhook-id"), self.headers.get("webhook-timestamp"),
            self.headers.get("webhook-signature"), body, headers)
        text = b'{"ok":true}' if status == 200 else b'{"ok":false}'
        self.send_response(status)
        for name, value in extra.items():
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def log_message(self, format, *args):
        if self.server.receiver.verbose:
            sys.stderr.write("receiver: " + (format % args) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", required=True)
    secret = parser.add_mutually_exclusive_group(required=True)
    secret.add_argument("--secret-file")
    secret.add_argument("--secret")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tolerance", type=int, default=300)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    text = args.secret
    if args.secret_file:
        with open(args.secret_file) as f:
            text = f.read()
    os.makedirs(args.dir, exist_ok=True)
    receiver = Receiver(args.dir, secret_key(text), port=args.port, tolerance=args.tolerance, verbose=args.verbose)
    receiver.serve_control(os.path.join(args.dir, "control.sock"), os.path.join(args.dir, "ready"))


if __name__ == "__main__":
    main()
