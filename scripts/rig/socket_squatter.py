#!/usr/bin/python3
"""Takes passtapd's socket path as another user would, to check that `passtap` refuses it.

    socket_squatter.py SOCKET --uid UID --ready FILE --report FILE [--timeout S]

Started as root: drops to UID (its group the same number, no supplementary groups) before it
creates the socket, so the listening socket, and what a client reads with SO_PEERCRED, belong to
UID. Writes its pid to the --ready file once it listens, accepts one client, reads what it sends until the client
closes or a whole line has come (it never answers), then writes {"accepted": true, "received": N}
to --report (N bytes) and exits. With no client within --timeout seconds (default 20) it reports
{"accepted": false}.
"""

import argparse
import json
import os
import socket


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("socket")
    parser.add_argument("--uid", type=int, required=True)
    parser.add_argument("--ready", required=True)
    parser.add_argument("--report", required=True)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()

    # Both files are opened before the drop, so the test's own folder need not be writable by UID.
    # The ready file is empty until the socket listens (a client connecting earlier is refused).
    report = open(args.report, "w")
    ready = open(args.ready, "w")
    os.setgroups([])
    os.setgid(args.uid)
    os.setuid(args.uid)

    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(args.socket)
    server.listen(1)
    ready.write("%d\n" % os.getpid())
    ready.close()
    server.settimeout(args.timeout)
    try:
        client, _ = server.accept()
    except socket.timeout:
        json.dump({"accepted": False}, report)
        report.close()
        return
    client.settimeout(args.timeout)
    received = b""
    try:
        while b"\n" not in received:
            chunk = client.recv(65536)
            if not chunk:
                break
            received += chunk
    except socket.timeout:
        pass
    client.close()
    json.dump({"accepted": True, "received": len(received)}, report)
    report.close()


if __name__ == "__main__":
    main()
