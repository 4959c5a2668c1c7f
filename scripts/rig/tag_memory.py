"""NFC Forum tags for the rigs: NDEF messages built byte by byte, the page memory of a Type 2 tag
(MIFARE Ultralight, NTAG215) and the files of a Type 4 tag, and the hostile variants the daemon
must survive. virtual_card.py (vpcd) and pn532_emulator.py (libnfc) both serve them.

Layouts, from the public datasheets and specifications (facts only):
- NDEF record header: MB 80, ME 40, CF 20, SR 10, IL 08, TNF in the low 3 bits; type length,
  payload length (1 byte with SR, else 4), [ID length], type, [ID], payload (NFC Forum NDEF 1.0).
  URI record: type "U", payload = prefix code + rest (01 "http://www.", 02 "https://www.",
  03 "http://", 04 "https://"); Text record: type "T", payload = status byte (bit 7 UTF-16, low
  6 bits the language code's length), language code, text (NFC Forum URI RTD and Text RTD).
- NTAG215 (NXP NTAG213/215/216 datasheet): 135 pages of 4 bytes; pages 0-2 UID, BCC and static
  lock bytes, page 3 the capability container (E1 10 3E 00: NDEF magic, version 1.0, 0x3E * 8 =
  496 bytes of data area, read and write free), pages 4-129 user memory, 130 dynamic lock bytes,
  131-134 configuration. READ (30 page) answers 16 bytes, four pages, rolling over to page 0 at
  the end; a page past the last gets a NAK.
- Type 2 TLVs (NFC Forum Type 2 Tag 1.0): 00 NULL, 01 Lock Control, 02 Memory Control, 03 NDEF
  message, FE terminator; the length is one byte, or FF and two bytes.
- Type 4 (NFC Forum Type 4 Tag 2.0): NDEF application D2760000850101; capability container file
  E103 (CCLEN, mapping version 20, MLe, MLc, NDEF File Control TLV 04 06: file id, maximum size,
  read and write access); the NDEF file starts with NLEN (2 bytes), then the message.
"""

NDEF_APPLICATION = "D2760000850101"
CC_FILE = "E103"
NDEF_FILE = "E104"

TNF_EMPTY, TNF_WELL_KNOWN = 0x00, 0x01
URI_PREFIXES = [(b"https://www.", 0x02), (b"http://www.", 0x01), (b"https://", 0x04), (b"http://", 0x03)]

NTAG215_PAGES = 135
NTAG215_CC = bytes.fromhex("E1103E00")
# The UID of the rig's NTAG215s (NXP's manufacturer code 04 first).
NTAG215_UID = "04D1E2F3A4B580"

# The records the NDEF-holding tags carry, as the integration tests expect them.
SAMPLE_URI = "https://passtap.example/tag"
SAMPLE_TEXT = "Hello from PassTap"
SAMPLE_LANGUAGE = "en"


def record(tnf, type_=b"", payload=b"", id_=b"", first=True, last=True):
    """One NDEF record: short (SR) when the payload is under 256 bytes, IL when it has an id."""
    header = tnf & 0x07
    header |= 0x80 if first else 0
    header |= 0x40 if last else 0
    short = len(payload) < 256
    header |= 0x10 if short else 0
    header |= 0x08 if id_ else 0
    out = bytes([header, len(type_)])
    out += bytes([len(payload)]) if short else len(payload).to_bytes(4, "big")
    if id_:
        out += bytes([len(id_)])
    return out + type_ + id_ + payload


def uri_payload(uri):
    """A URI record's payload: the longest known prefix as its code, then the rest."""
    raw = uri.encode()
    for prefix, code in URI_PREFIXES:
        if raw.startswith(prefix):
            return bytes([code]) + raw[len(prefix) :]
    return b"\x00" + raw


def text_payload(text, language="en"):
    """A Text record's payload, UTF-8."""
    code = language.encode("ascii")
    return bytes([len(code)]) + code + text.encode()


def message(records):
    """An NDEF message from (tnf, type, payload) or (tnf, type, payload, id) tuples: MB on the
    first, ME on the last. The rig's one NDEF encoder: the tags' messages and the virtual Android
    phone's Smart Tap records (virtual_android.py) both come from it, and test_tag_memory.py checks
    it against ndeflib."""
    out = b""
    for index, (tnf, type_, payload, *id_) in enumerate(records):
        out += record(tnf, type_, payload, *id_, first=index == 0, last=index == len(records) - 1)
    return out


def sample_message():
    """A URI record and a Text record."""
    return message([(TNF_WELL_KNOWN, b"U", uri_payload(SAMPLE_URI)), (TNF_WELL_KNOWN, b"T", text_payload(SAMPLE_TEXT, SAMPLE_LANGUAGE))])


def empty_records(count):
    """`count` empty records (TNF 0, no type, no payload): 3 bytes each."""
    return message([(TNF_EMPTY, b"", b"")] * count)


def tlv(tag, value):
    """A Type 2 TLV: one length byte under 255, else FF and two bytes."""
    if len(value) < 0xFF:
        return bytes([tag, len(value)]) + value
    return bytes([tag, 0xFF]) + len(value).to_bytes(2, "big") + value


def ndef_tlv(ndef):
    return tlv(0x03, ndef)


# The Lock Control TLV NTAG213s ship with (their dumps start 01 03 A0 0C 34 03 00 FE): where the
# dynamic lock bytes are, which a reader skips.
LOCK_CONTROL_TLV = tlv(0x01, bytes.fromhex("A00C34"))
TERMINATOR = b"\xFE"


def type2_header(uid):
    """Pages 0-2: UID0-2 and BCC0 (88 ^ UID0-2), UID3-6, BCC1, the internal byte 48, static lock 00 00."""
    uid = (bytes.fromhex(uid) if isinstance(uid, str) else uid) + bytes(7)
    uid = uid[:7]
    bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
    bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
    return uid[:3] + bytes([bcc0]) + uid[3:7] + bytes([bcc1, 0x48, 0x00, 0x00])


def ultralight_pages(uid):
    """16 pages of a MIFARE Ultralight with this 7-byte UID: UID + BCCs, lock bytes, OTP, zeros."""
    return type2_header(uid) + bytes(4) + bytes(48)


def ntag215_pages(data, uid=NTAG215_UID, cc=NTAG215_CC):
    """135 pages: header, `cc`, `data` in the user memory (zeros after it), and the configuration
    pages as NXP ships them (dynamic lock 000000BD, CFG0 04000000FF... AUTH0 FF: no password)."""
    user = 126 * 4
    if len(data) > user:
        raise ValueError("an NTAG215 holds %d bytes of user data, not %d" % (user, len(data)))
    tail = bytes.fromhex("000000BD" "040000FF" "00050000" "00000000" "00000000")
    return type2_header(uid) + cc + data + bytes(user - len(data)) + tail


class Type2Memory:
    """A Type 2 tag's pages as READ answers them: 16 bytes from a page, rolling over to page 0,
    None (NAK) for a page past the last. With `loop` N, the memory from page 4 on is its first N
    pages repeated without end: no page is past the last, and its TLVs never end."""

    def __init__(self, pages, loop=0):
        if len(pages) % 4 or len(pages) < 32:
            raise ValueError("a Type 2 tag's memory is whole pages, at least 8")
        if loop and not 0 < loop <= len(pages) // 4 - 4:
            raise ValueError("loop_pages must be 1 to %d, not %r" % (len(pages) // 4 - 4, loop))
        self.pages = bytes(pages)
        self.loop = int(loop)

    @property
    def page_count(self):
        return len(self.pages) // 4

    def byte(self, address):
        if self.loop and address >= 16:
            return self.pages[16 + (address - 16) % (self.loop * 4)]
        return self.pages[address % len(self.pages)]  # READ's rollover to page 0

    def read(self, page):
        if page >= self.page_count and not self.loop:
            return None
        return bytes(self.byte(page * 4 + offset) for offset in range(16))


def type4_cc(ndef_file_size, mle=0x00F6, mlc=0x00F6, file_id=NDEF_FILE):
    """A Type 4 tag 2.0 capability container: CCLEN 000F, version 20, MLe, MLc, NDEF File Control
    TLV (04 06, file id, maximum size, read access 00, write access 00)."""
    return (
        bytes.fromhex("000F20") + mle.to_bytes(2, "big") + mlc.to_bytes(2, "big")
        + bytes.fromhex("0406") + bytes.fromhex(file_id) + ndef_file_size.to_bytes(2, "big") + b"\x00\x00"
    )


def type4_profile(ndef, mle=0x00F6, mlc=0x00F6, nlen=None):
    """A Type 4 tag's profile keys: the NDEF application and its two files, NLEN first in the NDEF
    file (`nlen` overrides it, for a hostile tag)."""
    nlen = len(ndef) if nlen is None else nlen
    ndef_file = nlen.to_bytes(2, "big") + ndef
    return {
        "applications": [{"aid": NDEF_APPLICATION, "fci": ""}],
        "type4": {"files": {CC_FILE: type4_cc(len(ndef_file), mle, mlc).hex().upper(), NDEF_FILE: ndef_file.hex().upper()}, "mle": mle},
    }


def type2_profile(data, cc=NTAG215_CC):
    return {"kind": "memory", "uid": NTAG215_UID, "pages": ntag215_pages(data, cc=cc).hex().upper()}


def over_claiming_profile():
    """A MIFARE Ultralight (16 pages) whose CC claims an NTAG215's 496 bytes, holding the sample
    NDEF TLV (51 bytes) cut at the 48 bytes its user memory has: the TLV's last bytes would be
    READ's rollover to page 0 (the UID), which a reader must report as past the tag's memory."""
    data = (ndef_tlv(sample_message()) + TERMINATOR)[:48]
    pages = type2_header(NTAG215_UID) + NTAG215_CC + data
    return {"kind": "memory", "uid": NTAG215_UID, "pages": pages.hex().upper()}


def loop_profile(pattern, cc):
    """A tag whose memory from page 4 on is `pattern` (whole pages) repeated without end."""
    if len(pattern) % 4:
        raise ValueError("a loop's pattern is whole pages")
    pages = type2_header(NTAG215_UID) + cc + (pattern * NTAG215_PAGES)[: (NTAG215_PAGES - 4) * 4]
    return {"kind": "memory", "uid": NTAG215_UID, "pages": pages.hex().upper(), "loop_pages": len(pattern) // 4}


def builtin_tag_profiles():
    """The rig's tags by profile name (virtual_card.py and pn532_emulator.py --profile NAME)."""
    sample = sample_message()
    # A TLV loop: the CC claims the largest data area (FF: 2040 bytes, more than 255 pages can
    # address), and the memory from page 4 on is four Lock Control TLVs (5 pages) over and over,
    # past the last page too: no NDEF TLV, no terminator.
    return {
        "ntag215-ndef": type2_profile(ndef_tlv(sample) + TERMINATOR),
        "ntag215-empty": type2_profile(ndef_tlv(b"") + TERMINATOR),
        "ntag215-lock-control": type2_profile(LOCK_CONTROL_TLV + b"\x00\x00" + ndef_tlv(sample) + TERMINATOR),
        # NDEF TLV length 2000: past the 496 bytes the CC gives (the message is then cut short).
        "ntag215-beyond-cc": type2_profile(bytes.fromhex("03FF07D0") + sample + TERMINATOR),
        "ntag215-tlv-loop": loop_profile(LOCK_CONTROL_TLV * 4, cc=bytes.fromhex("E110FF00")),
        "ultralight-cc-too-large": over_claiming_profile(),
        "type4-ndef": type4_profile(sample),
        # 10 000 empty records: 30 000 bytes, only a Type 4 tag holds that many.
        "type4-many-records": type4_profile(empty_records(10_000), mle=0x00FF, mlc=0x00FF),
    }
