#!/usr/bin/env python3
"""PassTap's virtual card: a contactless card that taps a vsmartcard-vpcd virtual reader.

vpcd (the pcscd driver) listens on TCP; this program connects to it: connecting is a tap,
closing is a removal. Every message is a 2-byte big-endian length, then the payload. A 1-byte
payload is a control message (0 power off, 1 power on, 2 reset, 4 get ATR, answered with the
ATR); anything longer is a command APDU, answered with response data + SW1 SW2.

Modes:
  --tap-every SEC [--hold SEC] [--first-tap-after SEC]
                                 tap, stay HOLD seconds, remove, repeat (the demo; its devices
                                 start apart so that they tap in turn)
  --control PATH                 wait for line commands on a Unix socket (the tests and bench):
        tap              connect and stay until `remove`
        tap-for MS       connect, stay MS milliseconds, remove
        remove           disconnect
        pull-after N     on the next tap, drop the connection on receiving its Nth APDU
        stall            never answer the next APDU (of this tap, or of the next one when no
                         card is in the field); the card stays until `remove` or `quit`
        delay MS         answer every APDU MS milliseconds late, this tap and later ones
                         (`delay 0`: on time again)
        reader MODE      the reader's answer to the LED and buzzer pseudo-APDU FF 00 40:
                         acr122u (90 and the LED state), refuse (63 00), none (the card's
                         answer, as before)
        feedback         JSON: every FF 00 40 the reader was sent, in hex, oldest first
        stats            JSON: taps, and timings (CLOCK_MONOTONIC ns) of the last tap
        profile NAME     with no card in the field: the next taps are the card NAME (a built-in
                         profile or a profile file), with this command line's options
        quit             exit
  Every command is answered with one JSON line {"ok": true, ...} or {"ok": false, "error": ...}.
  --phone FILE                   be a virtual iPhone with Apple Wallet passes (virtual_iphone.py:
                                 phone file format, misbehaviours and its extra line commands), or,
                                 when the file's "wallet" is "AndroidPay", a virtual Android phone
                                 with Google Wallet passes read by Smart Tap (virtual_android.py)

Profile (--profile FILE, JSON, or a built-in profile's name: memory-ultralight, memory-classic,
and the NDEF tags of tag_memory.py: ntag215-ndef, ntag215-empty, ntag215-lock-control,
ntag215-beyond-cc, ntag215-tlv-loop, ultralight-cc-too-large, type4-ndef, type4-many-records; every key optional, missing
keys take the built-in card's; "base": NAME starts from a built-in profile):
  {"kind": "iso-dep", "ats": "0B787781024B4F4E411411", "uid": "04A1B2C3", "uid_supported": true,
   "applications": [{"aid": "A0000000041010", "fci": "6F..."}],
   "chain": ["A0000000041010"],          # SELECT answers 61xx; the FCI comes by GET RESPONSE
   "le_correction": ["A0000000041010"]}  # SELECT answers 6Cxx unless its Le is the FCI's length
  ats: the card's ATS without CRC (TL T0 [TA1 TB1 TC1] historical bytes); the ATR is the one a
  PC/SC part 3 reader builds for an ISO 14443-4 card: 3B 8n 80 01, the n historical bytes, TCK.
  "atr": "3B..." replaces that derived ATR. kind "memory" is a memory tag behind a CCID reader
  (MIFARE Ultralight by default: ATR 3B8F8001804F0CA0000003060300030000000068, no ATS), with
  "pages" (hex, whole 4-byte pages; default 16 pages of an empty Ultralight), "page_read_bytes"
  16 or 4 (also --page-read-bytes), "loop_pages" N (the memory from page 4 on is its first N pages without end),
  "long_read_refusal" (hex status word, e.g. "6700": a reader that refuses FF B0 with Le over 4 when
  the pages asked for run past the tag's last page, as some PC/SC readers do) and
  "sak" (hex, default "00"; the emulated PN532 reports it).
  "type4": {"files": {"E103": hex, "E104": hex}, "mle": N}: a Type 4 tag's files under the
  NDEF application D2760000850101 (which "applications" must list).
Answers (iso-dep): FF CA 00 00 00 -> UID + 9000 (6A81 with uid_supported false or --no-uid);
SELECT by name 00 A4 04 00 Lc AID [Le] -> FCI + 9000, or 6A82 for an absent AID;
GET RESPONSE 00 C0 00 00 Le -> the pending FCI (6F00 if none); with "type4" files, SELECT by file
id 00 A4 00 0C 02 id (in the NDEF application; 6A82 otherwise) and READ BINARY 00 B0 offset Le
(6700 when Le is over "mle", 6B00 past the end); other INS -> 6D00.
Answers (memory), as an ACR122U gives them: FF CA 00 00 -> UID + 9000; FF B0 00 page Le -> the tag's
READ from that page (16 bytes, or 4 with page_read_bytes 4) + 9000, 6300 past the last page; other FF (pseudo-APDU
for the reader, e.g. FF CA 01 00 for the ATS it has not) -> 6A81 "function not supported";
any other APDU -> 6300 "operation failed" (the tag does not speak ISO 7816-4).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from card_model import BUILTIN_PROFILES, PAGE_READ_SIZES, Card, log  # noqa: E402

class Timing:
    """When the card answers, set by the `stall` and `delay` line commands; shared by every tap."""

    def __init__(self):
        self.lock = threading.Lock()
        self.delay_s = 0.0
        self.stall_pending = False

    def take_stall(self):
        """Whether this APDU is the one to leave unanswered (once per `stall`)."""
        with self.lock:
            stall, self.stall_pending = self.stall_pending, False
            return stall


class ReaderFeedback:
    """The reader's part of the LED and buzzer pseudo-APDU FF 00 40 (ACR122U API 6.2), which a
    real reader answers itself and vpcd hands to the card: with `reader acr122u` it is answered
    90 and the LED state, with `reader refuse` 63 00 (a reader that refuses it); every such
    command is recorded for the `feedback` line command. Shared by every tap."""

    def __init__(self):
        self.lock = threading.Lock()
        self.mode = None
        self.commands = []

    def answer(self, apdu):
        """The reader's answer to `apdu`, or None when it is the card's to answer."""
        if self.mode is None or apdu[:3] != b"\xFF\x00\x40":
            return None
        with self.lock:
            self.commands.append(apdu.hex().upper())
        return b"\x63\x00" if self.mode == "refuse" else bytes([0x90, apdu[3] & 0x03 if len(apdu) > 3 else 0])


class Tap:
    """One connection to vpcd: serves control messages and APDUs until closed."""

    def __init__(self, host, port, card, verbose, pull_after=None, timing=None, feedback=None):
        self.card = card
        self.verbose = verbose
        self.pull_after = pull_after
        self.timing = timing or Timing()
        self.feedback = feedback or ReaderFeedback()
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
                if self.timing.take_stall():
                    log(self.verbose, "stalling on APDU", self.stats["apdus"], "until the card is removed")
                    self.stats["stalled"] = True
                    self.closed.wait()
                    break
                if self.timing.delay_s and self.closed.wait(self.timing.delay_s):
                    break
                answer = self.feedback.answer(payload) or self.card.answer(payload)
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
        self.timing = Timing()
        self.feedback = ReaderFeedback()

    def remove(self):
        if self.tap is not None:
            self.tap.close()
            self.tap.thread.join(timeout=2)
            self.last_stats = dict(self.tap.stats)
            self.tap = None

    def start_tap(self):
        self.remove()
        self.tap = Tap(self.args.host, self.args.port, self.card, self.args.verbose, self.pull_after, self.timing, self.feedback)
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
        if command == "stall":
            with self.timing.lock:
                self.timing.stall_pending = True
            return {"ok": True, "stall": True}
        if command == "delay":
            milliseconds = int(rest[0])
            if milliseconds < 0:
                raise ValueError("delay must be 0 or more milliseconds, not %d" % milliseconds)
            with self.timing.lock:
                self.timing.delay_s = milliseconds / 1000
            return {"ok": True, "delay_ms": milliseconds}
        if command == "profile":
            if self.tap is not None:
                raise ValueError("remove the card before changing its profile")
            if type(self.card) is not Card:
                raise ValueError("a virtual phone keeps its profile")
            self.card = Card(profile_with_options(load_profile(rest[0]), self.args))
            return {"ok": True, "profile": rest[0]}
        if command == "stats":
            current = dict(self.tap.stats) if self.tap is not None else self.last_stats
            present = self.tap is not None and not self.tap.closed.is_set()
            return dict({"ok": True, "taps": self.taps, "present": present, "last": current}, **self.card.status())
        if command == "reader":
            if rest not in (["acr122u"], ["refuse"], ["none"]):
                raise ValueError("usage: reader acr122u|refuse|none")
            with self.feedback.lock:
                self.feedback.mode = None if rest[0] == "none" else rest[0]
            return {"ok": True, "reader": rest[0]}
        if command == "feedback":
            with self.feedback.lock:
                return {"ok": True, "commands": list(self.feedback.commands)}
        if command == "quit":
            self.remove()
            return {"ok": True, "quit": True}
        reply = self.card.control(command, rest)
        if reply is not None:
            return reply
        known = ", ".join(
            filter(None, ["tap, tap-for MS, remove, pull-after N, stall, delay MS, reader MODE, feedback, stats, quit", self.card.control_commands]))
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


def load_profile(name):
    """The profile --profile names: a built-in one's name, a JSON file, or None (the demo card).
    A file's "base" names a built-in profile its other keys change."""
    if name in BUILTIN_PROFILES and not os.path.exists(name):
        return dict(BUILTIN_PROFILES[name])
    if name:
        with open(name) as handle:
            profile = json.load(handle)
        base = profile.pop("base", None)
        if base is not None:
            if base not in BUILTIN_PROFILES:
                raise ValueError("base %r is not a built-in profile (%s)" % (base, ", ".join(BUILTIN_PROFILES)))
            profile = dict(BUILTIN_PROFILES[base], **profile)
        return profile
    return {}


def profile_with_options(profile, args):
    """`profile` changed by the command line's --no-uid and --page-read-bytes."""
    if getattr(args, "no_uid", False):
        profile["uid_supported"] = False
    if getattr(args, "page_read_bytes", None):
        profile["page_read_bytes"] = args.page_read_bytes
    return profile


def load_phone(path, profile):
    """The phone a phone file describes: a virtual Android phone (virtual_android.py) when its
    "wallet" is "AndroidPay", else a virtual iPhone (virtual_iphone.py)."""
    with open(path) as handle:
        wallet = json.load(handle).get("wallet")
    if wallet == "AndroidPay":
        from virtual_android import Phone
    else:
        from virtual_iphone import Phone
    return Phone.from_file(path, profile)


def exit_on_signals():
    """SIGTERM and SIGINT end the program with status 0, through SystemExit so that `finally`
    blocks clean up, even when it was started with SIGINT ignored (a background job of a script).
    Only the first signal counts: it blocks both (pthread_sigmask), and one already caught returns.
    A Ctrl-C on scripts/demo can send SIGINT and then SIGTERM: a second SystemExit during Python's
    shutdown printed a traceback ("Exception ignored in: <module 'threading'>"), and a signal after
    Python had put the default handlers back killed the process (status -15). (Setting SIG_IGN
    instead races: Python raises "OSError: Signal 15 ignored due to race condition" for a signal
    caught just before.) pn532_emulator.py uses it too."""
    stopping = []

    def stop(signum, frame):
        if stopping:
            return
        stopping.append(signum)
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=35963, help="vpcd's port (its CHANNELID)")
    parser.add_argument("--profile", help="card profile JSON file, or a built-in profile's name (%s; default: the demo card)" % ", ".join(BUILTIN_PROFILES))
    parser.add_argument("--no-uid", action="store_true", help="answer the UID read with 6A81, like readers without it")
    parser.add_argument("--page-read-bytes", type=int, choices=PAGE_READ_SIZES, help="a memory tag's FF B0 answers 16 bytes (as an ACR122U) or 4 (one page)")
    parser.add_argument("--tap-every", type=float, help="seconds between taps (demo mode)")
    parser.add_argument("--hold", type=float, default=0.5, help="seconds a tap stays (demo mode)")
    parser.add_argument("--first-tap-after", type=float, default=0, metavar="SEC", help="seconds before the first tap (demo mode)")
    parser.add_argument("--control", help="Unix socket for line commands (test mode)")
    parser.add_argument("--phone", help="phone file (JSON): be a virtual iPhone, or (wallet AndroidPay) Android phone, with these passes")
    parser.add_argument("-v", "--verbose", action="store_true", help="log APDUs to stderr")
    args = parser.parse_args()

    profile = profile_with_options(load_profile(args.profile), args)
    if args.phone:
        card = load_phone(args.phone, profile)
    else:
        card = Card(profile)
    exit_on_signals()

    if args.control:
        Controller(args, card).serve(args.control)
    elif args.tap_every:
        time.sleep(args.first_tap_after)
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
