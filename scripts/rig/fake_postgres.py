#!/usr/bin/python3
"""A forged PostgreSQL server: asks one client for its password and records what it sends.

    fake_postgres.py --ready FILE --report FILE [--ask cleartext|md5] [--cert PEM --key PEM]

Listens on 127.0.0.1 (a free port, written to the --ready file once it listens) and serves one
connection with just enough of the PostgreSQL protocol (docs: "Frontend/Backend Protocol",
"Message Flow", "Start-up"): an SSLRequest is answered 'S' and the connection wrapped in TLS with
--cert/--key (without them, 'N'); the startup message is read; then the server sends
AuthenticationCleartextPassword ('R', code 3) or AuthenticationMD5Password ('R', code 5 and a
salt), as a server that wants the password would. Everything the client sends after that, until
it closes the connection or 5 s pass, is written to the --report file as JSON:
{"tls": true, "startup_user": "passtap", "after_request_hex": "70000000..."}. An empty
after_request_hex means the password (or its MD5 hash) never left the client
(`PostgresSinkTests`).
"""

import argparse
import json
import os
import socket
import ssl
import struct

SSL_REQUEST_CODE = 80877103


def read_exact(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError("the client closed the connection")
        data += chunk
    return data


def read_startup(sock):
    """One length-prefixed startup-phase message (SSLRequest or StartupMessage): its body."""
    (length,) = struct.unpack("!I", read_exact(sock, 4))
    return read_exact(sock, length - 4)


def startup_user(body):
    """The user parameter of a StartupMessage body (protocol version, then name/value pairs)."""
    fields = body[4:].split(b"\0")
    for name, value in zip(fields[0::2], fields[1::2]):
        if name == b"user":
            return value.decode("utf-8", "replace")
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ready", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--ask", choices=["cleartext", "md5"], default="cleartext")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()

    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(30)
    with open(args.ready + ".tmp", "w") as ready:
        ready.write(str(listener.getsockname()[1]))
    os.rename(args.ready + ".tmp", args.ready)

    client, _ = listener.accept()
    client.settimeout(5)
    report = {"tls": False, "startup_user": None, "after_request_hex": ""}
    try:
        body = read_startup(client)
        if struct.unpack("!I", body[:4])[0] == SSL_REQUEST_CODE:
            if args.cert:
                client.sendall(b"S")
                context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                context.load_cert_chain(args.cert, args.key)
                client = context.wrap_socket(client, server_side=True)
                report["tls"] = True
            else:
                client.sendall(b"N")
            body = read_startup(client)
        report["startup_user"] = startup_user(body)
        if args.ask == "cleartext":
            client.sendall(struct.pack("!cII", b"R", 8, 3))
        else:
            client.sendall(struct.pack("!cIII", b"R", 12, 5, 0x5A17C0DE))
        received = b""
        try:
            while True:
                chunk = client.recv(4096)
                if not chunk:
                    break
                received += chunk
        except (socket.timeout, OSError):
            pass
        report["after_request_hex"] = received.hex()
    except (ConnectionError, socket.timeout, ssl.SSLError, OSError) as error:
        report["error"] = str(error)
    finally:
        client.close()
    with open(args.report + ".tmp", "w") as out:
        json.dump(report, out)
    os.rename(args.report + ".tmp", args.report)


if __name__ == "__main__":
    main()
