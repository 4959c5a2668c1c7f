#!/usr/bin/python3
"""Holds many TCP connections to a listener and replaces each one the listener closes.

    tcp_flood.py HOST PORT --connections N [--report-every K]

Opens N non-blocking connections (raising its own soft open-file limit to fit them) and never
sends anything. Whenever the listener closes or resets one, or a connect fails, it opens a new
one, so N are always held or under way. Prints a JSON line to stdout at start
({"held": N, "closed": 0}), then every K (default 200) connections the listener closed, with
"closed" counting them all. Runs until SIGTERM or SIGINT. The tests start it as another user
(nobody, through setpriv) against passtapd's metrics port (`[metrics] max_connections`).
"""

import argparse
import errno
import json
import resource
import select
import signal
import socket
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--connections", type=int, required=True)
    parser.add_argument("--report-every", type=int, default=200)
    args = parser.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = args.connections + 64
    if soft < need:
        if hard != resource.RLIM_INFINITY and hard < need:
            sys.exit(f"tcp_flood: the hard open-file limit {hard} is below the {need} descriptors asked for")
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, hard))

    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGINT, lambda *_: stopping.append(True))
    poller = select.epoll()
    held = {}

    def open_one():
        sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setblocking(False)
        code = sock.connect_ex((args.host, args.port))
        if code not in (0, errno.EINPROGRESS):
            sock.close()
            return False
        held[sock.fileno()] = sock
        poller.register(sock.fileno(), select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLERR | select.EPOLLHUP)
        return True

    def report(closed):
        print(json.dumps({"held": len(held), "closed": closed}), flush=True)

    for _ in range(args.connections):
        open_one()
    closed = 0
    report(closed)
    while not stopping:
        try:
            events = poller.poll(1.0)
        except InterruptedError:
            continue
        for fd, _ in events:
            sock = held.pop(fd, None)
            if sock is None:
                continue
            poller.unregister(fd)
            sock.close()
            closed += 1
            if closed % args.report_every == 0:
                report(closed)
        while len(held) < args.connections and not stopping:
            if not open_one():
                break
    for sock in held.values():
        sock.close()


if __name__ == "__main__":
    main()
