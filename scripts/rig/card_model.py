"""The card model of the rig: what our virtual card answers, as an ISO 14443-4 card with a few
applications or a memory tag behind a CCID reader, and its profiles (virtual_card.py's help has
the profile format and the answers).

The transports import it: virtual_card.py (vsmartcard-vpcd over TCP) and pn532_emulator.py (an
emulated PN532 for libnfc). The virtual phones (virtual_iphone.py, virtual_android.py) subclass
`Card`; this module imports none of them, so the dependencies run one way: the transports, then
the phones, then the card.
"""

import os
import sys

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
