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

from tag_memory import NDEF_APPLICATION, Type2Memory, builtin_tag_profiles, ultralight_pages  # noqa: E402

# The built-in card is an ISO 14443-4 (ISO-DEP) payment card. Its historical bytes, 4B4F4E41 1411
# ("KONA", 14 11), are a real contactless Mastercard's: pcsc-tools' smartcard_list.txt lists the
# ATR they give, 3B 86 80 01 4B 4F 4E 41 14 11 09, as "Mastercard paypass enabled credit card".
# Its interface bytes are common ones (T0 78: TA1 TB1 TC1 present, FSCI 8 = 256-byte frames;
# TA1 77: 212 to 848 kbit/s both ways; TB1 81: FWI 8, SFGI 1; TC1 02: CID supported).
CARD_ATS = "0B78778102" + "4B4F4E411411"
# PC/SC part 3 (3.1.3.2.3.1) ATR of a storage card: 3B 8F 80 01 80 4F 0C, RID A0 00 00 03 06,
# standard 03 (ISO 14443 A part 3), card name 00 03 (MIFARE Ultralight), RFU 00 00 00 00, TCK.
# smartcard_list.txt: "NXP Mifare Ultralight or UltralightC".
ULTRALIGHT_ATR = "3B8F8001804F0CA0000003060300030000000068"
KINDS = ("iso-dep", "memory")
DEFAULT_PROFILE = {
    "kind": "iso-dep",
    "ats": CARD_ATS,
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
# Profiles --profile can name instead of a file.
BUILTIN_PROFILES = {
    # An NTAG/Ultralight sticker read through a CCID reader (its UID is the one docs/socket-api.md shows).
    "memory-ultralight": {"kind": "memory", "atr": ULTRALIGHT_ATR, "uid": "04A23C1A7F2D80"},
    # A MIFARE Classic 1K (card name 0001): a memory card whose pages PassTap must not read.
    # Its SAK 08 is what an ISO 14443 A poll gives (pn532_emulator.py).
    "memory-classic": {"kind": "memory", "atr": "3B8F8001804F0CA000000306030001000000006A", "uid": "C1A55C1C", "sak": "08"},
    # NDEF tags (tag_memory.py): NTAG215s (an ACR122U gives them the Ultralight ATR) and Type 4 tags.
    **builtin_tag_profiles(),
}
PAGE_READ_SIZES = (16, 4)


def historical_bytes(ats):
    """The historical bytes of an ATS given without CRC (TL T0 [TA1 TB1 TC1] T1..Tk)."""
    if len(ats) < 2 or ats[0] != len(ats):
        raise ValueError("ATS %s: TL must be its length (CRC excluded), at least 2" % ats.hex().upper())
    interface = bin(ats[1] & 0x70).count("1")  # T0 b5..b7: TA1, TB1, TC1 present
    if len(ats) < 2 + interface:
        raise ValueError("ATS %s: T0 announces %d interface bytes" % (ats.hex().upper(), interface))
    return ats[2 + interface :]


def atr_from_ats(ats):
    """PC/SC part 3 (3.1.3.2.3.2): the ATR a reader builds for an ISO 14443-4 card: 3B, T0 = 8n
    (TD1 follows, n historical bytes), TD1 = 80 (TD2 follows, T=0), TD2 = 01 (T=1), the ATS's
    historical bytes, and TCK, the XOR of T0 to the last historical byte."""
    history = historical_bytes(ats)
    if len(history) > 15:
        raise ValueError("an ATR carries at most 15 historical bytes, the ATS has %d" % len(history))
    body = bytes([0x80 | len(history), 0x80, 0x01]) + history
    tck = 0
    for byte in body:
        tck ^= byte
    return b"\x3B" + body + bytes([tck])


def log(verbose, *parts):
    if verbose:
        print("virtual_card:", *parts, file=sys.stderr, flush=True)


class Card:
    """Answers APDUs like a simple ISO 14443-4 card with a few applications, or (kind "memory")
    like a memory tag behind a CCID reader.

    A virtual phone (Apple VAS, virtual_iphone.py) subclasses it: it extends `answer` and the
    hooks `begin_tap`, `control_handlers` and `status`."""

    control_commands = ""

    def __init__(self, profile):
        profile = dict(DEFAULT_PROFILE, **profile)
        self.kind = profile["kind"]
        if self.kind not in KINDS:
            raise ValueError("kind must be one of %s, not %r" % (", ".join(KINDS), self.kind))
        if self.kind == "memory":
            self.ats = None
            self.atr = bytes.fromhex(profile.get("atr", ULTRALIGHT_ATR))
            pages = bytes.fromhex(profile["pages"]) if "pages" in profile else ultralight_pages(bytes.fromhex(profile["uid"]))
            self.memory = Type2Memory(pages, loop=profile.get("loop_pages", 0))
            self.page_read_bytes = profile.get("page_read_bytes", 16)
            self.sak = int(profile.get("sak", "00"), 16)
            self.long_read_refusal = bytes.fromhex(profile.get("long_read_refusal", ""))
            if self.long_read_refusal and len(self.long_read_refusal) != 2:
                raise ValueError("long_read_refusal is a status word, 2 bytes of hex")
            if self.page_read_bytes not in PAGE_READ_SIZES:
                raise ValueError("page_read_bytes must be 16 or 4, not %r" % self.page_read_bytes)
        else:
            self.ats = bytes.fromhex(profile["ats"])
            self.atr = bytes.fromhex(profile["atr"]) if "atr" in profile else atr_from_ats(self.ats)
        self.uid = bytes.fromhex(profile["uid"])
        self.uid_supported = profile["uid_supported"]
        self.applications = {app["aid"].upper(): bytes.fromhex(app.get("fci", "")) for app in profile["applications"]}
        self.chain = {aid.upper() for aid in profile["chain"]}
        self.le_correction = {aid.upper() for aid in profile["le_correction"]}
        self.pending = b""
        type4 = profile.get("type4") or {}
        self.type4_files = {name.upper(): bytes.fromhex(data) for name, data in type4.get("files", {}).items()}
        self.type4_mle = type4.get("mle", 0xFFFF)
        self.selected_aid = None
        self.selected_file = None
        self.largest_read = 0

    def begin_tap(self):
        """Called when a tap connects, before its first APDU: nothing is selected."""
        self.selected_aid = None
        self.selected_file = None

    def control_handlers(self):
        """A subclass's own line commands: name -> method taking the command's arguments."""
        return {}

    def control(self, command, args):
        """A subclass's own line command run under its `lock`: its JSON reply, or None when the
        command is not its. Wrong arguments are a ValueError naming `control_commands`."""
        handler = self.control_handlers().get(command)
        if handler is None:
            return None
        with self.lock:
            try:
                return handler(*args)
            except TypeError:
                raise ValueError("usage: %s" % self.control_commands) from None

    def status(self):
        """Extra fields for the `stats` reply: the largest READ BINARY Le a Type 4 tag was asked for."""
        return {"largest_read": self.largest_read} if self.type4_files else {}

    def answer(self, apdu):
        if self.kind == "memory":
            return self.answer_as_memory_tag(apdu)
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
        if self.type4_files and cla == 0x00 and ins == 0xA4 and p1 == 0x00:
            return self.select_file(apdu)
        if self.type4_files and cla == 0x00 and ins == 0xB0:
            return self.read_binary(apdu)
        return b"\x6D\x00"

    def select_file(self, apdu):
        """Type 4 SELECT by file id (00 A4 00 0C 02 id), inside the NDEF application only."""
        if len(apdu) < 7 or apdu[4] != 2:
            return b"\x67\x00"
        name = apdu[5:7].hex().upper()
        if self.selected_aid != NDEF_APPLICATION or name not in self.type4_files:
            self.selected_file = None
            return b"\x6A\x82"
        self.selected_file = name
        return b"\x90\x00"

    def read_binary(self, apdu):
        """READ BINARY 00 B0 offset Le from the selected file. An Le over the CC's MLe is refused
        (6700), so a reader that ignores MLe sees it; an offset past the file's end gets 6B00."""
        if self.selected_file is None:
            return b"\x69\x86"
        if len(apdu) != 5:
            return b"\x67\x00"
        offset = apdu[2] << 8 | apdu[3]
        le = apdu[4] or 256
        self.largest_read = max(self.largest_read, le)
        if le > self.type4_mle:
            return b"\x67\x00"
        data = self.type4_files[self.selected_file]
        if offset > len(data):
            return b"\x6B\x00"
        return data[offset : offset + le] + b"\x90\x00"

    def answer_as_memory_tag(self, apdu):
        """What an ACR122U answers for a MIFARE Ultralight: only the reader's own GET DATA (UID)
        works; its other pseudo-APDUs are not supported for this card, and anything else is
        sent to a tag that does not answer ISO 7816-4."""
        if apdu[:4] == b"\xFF\xCA\x00\x00" and self.uid_supported:
            return self.uid + b"\x90\x00"
        if apdu[:3] == b"\xFF\xB0\x00" and len(apdu) == 5:
            return self.read_binary_pages(apdu[3], apdu[4] or 256)
        if apdu[:1] == b"\xFF":
            return b"\x6A\x81"
        return b"\x63\x00"

    def read_binary_pages(self, page, le):
        """FF B0 00 page Le, PC/SC part 3 READ BINARY: the tag's READ (16 bytes from the page)
        as an ACR122U passes it on, or the one page (4 bytes) as some readers do; past the last
        page the tag NAKs and the reader answers 6300. With long_read_refusal, more than 4 bytes
        from a page whose four pages run past the last one get that status word instead."""
        if self.long_read_refusal and le > 4 and not self.memory.loop and page + 4 > self.memory.page_count:
            return self.long_read_refusal
        data = self.memory.read(page)
        if data is None:
            return b"\x63\x00"
        return data[: min(le, self.page_read_bytes)] + b"\x90\x00"

    def select(self, apdu):
        if len(apdu) < 6 or len(apdu) < 5 + apdu[4]:
            return b"\x67\x00"
        lc = apdu[4]
        aid = apdu[5 : 5 + lc].hex().upper()
        le = apdu[5 + lc] if len(apdu) > 5 + lc else None
        fci = self.applications.get(aid)
        self.selected_file = None
        if fci is None:
            self.selected_aid = None
            return b"\x6A\x82"
        self.selected_aid = aid
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


class Tap:
    """One connection to vpcd: serves control messages and APDUs until closed."""

    def __init__(self, host, port, card, verbose, pull_after=None, timing=None):
        self.card = card
        self.verbose = verbose
        self.pull_after = pull_after
        self.timing = timing or Timing()
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
        self.timing = Timing()

    def remove(self):
        if self.tap is not None:
            self.tap.close()
            self.tap.thread.join(timeout=2)
            self.last_stats = dict(self.tap.stats)
            self.tap = None

    def start_tap(self):
        self.remove()
        self.tap = Tap(self.args.host, self.args.port, self.card, self.args.verbose, self.pull_after, self.timing)
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
        if command == "quit":
            self.remove()
            return {"ok": True, "quit": True}
        reply = self.card.control(command, rest)
        if reply is not None:
            return reply
        known = ", ".join(filter(None, ["tap, tap-for MS, remove, pull-after N, stall, delay MS, stats, quit", self.card.control_commands]))
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
