#!/usr/bin/env python3
"""PassTap's virtual card: a contactless card that taps a vsmartcard-vpcd virtual reader.

vpcd (the pcscd driver) listens on TCP; this program connects to it: connecting is a tap,
closing is a removal. Every message is a 2-byte big-endian length, then the payload. A 1-byte
payload is a control message (0 power off, 1 power on, 2 reset, 4 get ATR, answered with the
ATR); anything longer is a command APDU, answered with response data + SW1 SW2.

Modes:
  --tap-every SEC [--hold SEC]   tap, stay HOLD seconds, remove, repeat (the demo)
  --control PATH                 wait for line commands on a Unix socket (the tests and bench):
        tap              connect and stay until `remove`
        tap-for MS       connect, stay MS milliseconds, remove
        remove           disconnect
        pull-after N     on the next tap, drop the connection on receiving its Nth APDU
        stats            JSON: taps, and timings (CLOCK_MONOTONIC ns) of the last tap
        quit             exit
  Every command is answered with one JSON line {"ok": true, ...} or {"ok": false, "error": ...}.
  --phone FILE                   be a virtual iPhone with Apple Wallet passes (virtual_iphone.py:
                                 phone file format, misbehaviours and its extra line commands)

Profile (--profile FILE, JSON; every key optional, missing keys take the built-in card's):
  {"atr": "3B8F...", "uid": "04A1B2C3", "uid_supported": true,
   "applications": [{"aid": "A0000000041010", "fci": "6F..."}],
   "chain": ["A0000000041010"],          # SELECT answers 61xx; the FCI comes by GET RESPONSE
   "le_correction": ["A0000000041010"]}  # SELECT answers 6Cxx unless its Le is the FCI's length
Answers: FF CA 00 00 00 -> UID + 9000 (6A81 with uid_supported false or --no-uid);
SELECT by name 00 A4 04 00 Lc AID [Le] -> FCI + 9000, or 6A82 for an absent AID;
GET RESPONSE 00 C0 00 00 Le -> the pending FCI (6F00 if none); other INS -> 6D00.
"""

import argparse
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

# A PC/SC part 3 style ATR for a contactless card, as CCID readers synthesise it.
DEFAULT_PROFILE = {
    "atr": "3B8F8001804F0CA000000306030001000000006A",
    "uid": "04A1B2C3D4E5F6",
    "uid_supported": True,
    "applications": [
        # A Mastercard-like application: the demo config asks for Visa first (absent: 6A82).
        {"aid": "A0000000041010", "fci": "6F1A8407A0000000041010A50F500A4D617374657243617264870101"},
        # NFC Forum Type 4 tag application.
        {"aid": "D2760000850101", "fci": ""},
    ],
    "chain": [],
    "le_correction": [],
}


def log(verbose, *parts):
    if verbose:
        print("virtual_card:", *parts, file=sys.stderr, flush=True)


class Card:
    """Answers APDUs like a simple ISO 14443-4 card with a few applications.

    A virtual phone (Apple VAS, virtual_iphone.py) subclasses it: it extends `answer` and the
    hooks `begin_tap`, `control` and `status`."""

    control_commands = ""

    def __init__(self, profile):
        profile = dict(DEFAULT_PROFILE, **profile)
        self.atr = bytes.fromhex(profile["atr"])
        self.uid = bytes.fromhex(profile["uid"])
        self.uid_supported = profile["uid_supported"]
        self.applications = {app["aid"].upper(): bytes.fromhex(app.get("fci", "")) for app in profile["applications"]}
        self.chain = {aid.upper() for aid in profile["chain"]}
        self.le_correction = {aid.upper() for aid in profile["le_correction"]}
        self.pending = b""

    def begin_tap(self):
        """Called when a tap connects, before its first APDU. The plain card keeps no tap state."""

    def control(self, command, args):
        """A subclass's own line command: its JSON reply, or None when the command is not its."""
        return None

    def status(self):
        """Extra fields for the `stats` reply."""
        return {}

    def answer(self, apdu):
        if len(apdu) < 4:
            return b"\x67\x00"
        cla, ins, p1 = apdu[0], apdu[1], apdu[2]
        if cla == 0xFF and ins == 0xCA and p1 == 0x00:
            # PC/SC part 3 GET DATA (UID): real readers answer it themselves; vpcd passes it to us.
            return self.uid + b"\x90\x00" if self.uid_supported else b"\x6A\x81"
        if ins == 0xA4 and p1 == 0x04:
            return self.select(apdu)
        if cla == 0x00 and ins == 0xC0:
            return self.get_response(apdu)
        return b"\x6D\x00"

    def select(self, apdu):
        if len(apdu) < 6 or len(apdu) < 5 + apdu[4]:
            return b"\x67\x00"
        lc = apdu[4]
        aid = apdu[5 : 5 + lc].hex().upper()
        le = apdu[5 + lc] if len(apdu) > 5 + lc else None
        fci = self.applications.get(aid)
        if fci is None:
            return b"\x6A\x82"
        if aid in self.le_correction and fci and le != len(fci) & 0xFF:
            return bytes([0x6C, len(fci) & 0xFF])
        if aid in self.chain and fci:
            self.pending = fci
            return bytes([0x61, len(fci) & 0xFF])
        return fci + b"\x90\x00"

    def get_response(self, apdu):
        if not self.pending:
            return b"\x6F\x00"
        le = apdu[4] if len(apdu) > 4 and apdu[4] else 256
        data, self.pending = self.pending[:le], self.pending[le:]
        if self.pending:
            return data + bytes([0x61, len(self.pending) & 0xFF])
        return data + b"\x90\x00"


class Tap:
    """One connection to vpcd: serves control messages and APDUs until closed."""

    def __init__(self, host, port, card, verbose, pull_after=None):
        self.card = card
        self.verbose = verbose
        self.pull_after = pull_after
        self.stats = {"connect_ns": None, "first_apdu_ns": None, "last_response_ns": None, "apdus": 0}
        self.sock = socket.create_connection((host, port))
        self.stats["connect_ns"] = time.monotonic_ns()
        card.begin_tap()
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.quickack()
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def quickack(self):
        # Linux re-arms delayed ACKs after each receive: set QUICKACK again every time.
        if hasattr(socket, "TCP_QUICKACK"):
            try:
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            except OSError:
                pass

    def recv_exact(self, count):
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise ConnectionError("vpcd closed the connection")
            data += chunk
        self.quickack()
        return data

    def send(self, payload):
        self.sock.sendall(struct.pack(">H", len(payload)) + payload)

    def serve(self):
        try:
            while True:
                (length,) = struct.unpack(">H", self.recv_exact(2))
                payload = self.recv_exact(length)
                if length == 1:
                    if payload[0] == 4:
                        self.send(self.card.atr)
                    continue
                now = time.monotonic_ns()
                self.stats["apdus"] += 1
                if self.stats["first_apdu_ns"] is None:
                    self.stats["first_apdu_ns"] = now
                if self.pull_after is not None and self.stats["apdus"] >= self.pull_after:
                    log(self.verbose, "pulling the card on APDU", self.stats["apdus"])
                    break
                answer = self.card.answer(payload)
                log(self.verbose, ">>", payload.hex().upper(), "<<", answer.hex().upper())
                self.send(answer)
                self.stats["last_response_ns"] = time.monotonic_ns()
        except (OSError, ConnectionError):
            pass
        finally:
            self.close()

    def close(self):
        if not self.closed.is_set():
            self.closed.set()
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()


class Controller:
    """Line commands on a Unix socket, for tests and the benchmark."""

    def __init__(self, args, card):
        self.args = args
        self.card = card
        self.tap = None
        self.taps = 0
        self.pull_after = None
        self.last_stats = None

    def remove(self):
        if self.tap is not None:
            self.tap.close()
            self.tap.thread.join(timeout=2)
            self.last_stats = dict(self.tap.stats)
            self.tap = None

    def start_tap(self):
        self.remove()
        self.tap = Tap(self.args.host, self.args.port, self.card, self.args.verbose, self.pull_after)
        self.pull_after = None
        self.taps += 1

    def handle(self, line):
        words = line.split()
        if not words:
            return {"ok": False, "error": "empty command"}
        command, rest = words[0], words[1:]
        if command == "tap":
            self.start_tap()
            return {"ok": True, "taps": self.taps}
        if command == "tap-for":
            self.start_tap()
            time.sleep(int(rest[0]) / 1000)
            self.remove()
            return {"ok": True, "taps": self.taps, "last": self.last_stats}
        if command == "remove":
            self.remove()
            return {"ok": True, "last": self.last_stats}
        if command == "pull-after":
            self.pull_after = int(rest[0])
            return {"ok": True}
        if command == "stats":
            current = dict(self.tap.stats) if self.tap is not None else self.last_stats
            present = self.tap is not None and not self.tap.closed.is_set()
            return dict({"ok": True, "taps": self.taps, "present": present, "last": current}, **self.card.status())
        if command == "quit":
            self.remove()
            return {"ok": True, "quit": True}
        reply = self.card.control(command, rest)
        if reply is not None:
            return reply
        known = ", ".join(filter(None, ["tap, tap-for MS, remove, pull-after N, stats, quit", self.card.control_commands]))
        return {"ok": False, "error": "unknown command %r (%s)" % (command, known)}

    def serve(self, path):
        if os.path.exists(path):
            os.unlink(path)
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(path)
        server.listen(4)
        try:
            self.accept_commands(server)
        finally:
            self.remove()
            server.close()
            if os.path.exists(path):
                os.unlink(path)

    def accept_commands(self, server):
        while True:
            client, _ = server.accept()
            with client, client.makefile("rw") as stream:
                for line in stream:
                    try:
                        reply = self.handle(line.strip())
                    except (OSError, ValueError, IndexError) as error:
                        reply = {"ok": False, "error": str(error)}
                    stream.write(json.dumps(reply) + "\n")
                    stream.flush()
                    if reply.get("quit"):
                        return


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=35963, help="vpcd's port (its CHANNELID)")
    parser.add_argument("--profile", help="card profile JSON file (default: a built-in demo card)")
    parser.add_argument("--no-uid", action="store_true", help="answer the UID read with 6A81, like readers without it")
    parser.add_argument("--tap-every", type=float, help="seconds between taps (demo mode)")
    parser.add_argument("--hold", type=float, default=0.5, help="seconds a tap stays (demo mode)")
    parser.add_argument("--control", help="Unix socket for line commands (test mode)")
    parser.add_argument("--phone", help="phone file (JSON): be a virtual iPhone with these Wallet passes")
    parser.add_argument("-v", "--verbose", action="store_true", help="log APDUs to stderr")
    args = parser.parse_args()

    profile = {}
    if args.profile:
        with open(args.profile) as handle:
            profile.update(json.load(handle))
    if args.no_uid:
        profile["uid_supported"] = False
    if args.phone:
        from virtual_iphone import Phone

        card = Phone.from_file(args.phone, profile)
    else:
        card = Card(profile)
    # Exit cleanly on both, even when started with SIGINT ignored (a background job of a script).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))

    if args.control:
        Controller(args, card).serve(args.control)
    elif args.tap_every:
        while True:
            try:
                tap = Tap(args.host, args.port, card, args.verbose)
            except OSError as error:
                print("virtual_card: cannot reach vpcd on %s:%d (%s); retrying" % (args.host, args.port, error), file=sys.stderr)
                time.sleep(args.tap_every)
                continue
            try:
                time.sleep(args.hold)
            finally:
                tap.close()
            time.sleep(max(args.tap_every - args.hold, 0.1))
    else:
        parser.error("choose --tap-every SEC or --control PATH")


if __name__ == "__main__":
    main()
