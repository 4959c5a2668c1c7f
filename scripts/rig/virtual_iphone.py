"""PassTap's virtual iPhone: a `Card` that answers like an iPhone with Apple Wallet (Apple VAS).

Used through `virtual_card.py --phone FILE` (every mode of virtual_card.py works with it).
Protocol: docs/vas-protocol.md (§2 SELECT, §3 GET VAS DATA, §4 status words,
§5 cryptogram). The phone encrypts with Python's `cryptography`, independently of PassTap's code.

Phone file (JSON; every key but "passes" optional, defaults shown but for "timestamp", absent):
  {"wallet": "ApplePay", "version": "0100", "capabilities": "0000003E", "variant": "A",
   "clock_offset_s": 0, "misbehave": "none", "requires_ecp": false, "ecp_cycles": 2,
   "passes": [{"pass_type_id": "pass.com.example.loyalty", "key": "merchant-key.pem",
               "message": "member 1234", "needs_auth": false, "timestamp": 774000000}]}
  key: a PEM file with the merchant's P-256 public or private key (only the public part is used);
  a relative path is taken from the phone file's folder. message: at most 64 bytes of UTF-8.
  timestamp (optional, per pass): seconds since 2001-01-01 UTC (Apple epoch, 0 to 2^32-1), put
  verbatim in every cryptogram of that pass; without it, the host's clock plus clock_offset_s.

Its ATR is 3B80800101: an ISO 14443-4 card without historical bytes (ATS 05 78 80 70 02;
a profile's "ats" or "atr" replaces it).

Enhanced Contactless Polling (docs/vas-protocol.md §7.3), with "requires_ecp": true: the phone
does not answer a poll (a reader's REQA) until it has heard `ecp_cycles` ECP frames (version 1,
6A 01 TCI TCI TCI) since it entered the field; it then answers in VAS mode. When the reader has
polled `ecp_cycles` times with no ECP at all, the phone takes it for a payment terminal and answers
that poll as a payment device: SELECT OSE.VAS.01 -> 6A82 (payment AIDs and the PPSE still select).
An ECP whose last TCI byte is 03 (payment only) also makes it a payment device. Once decided, the
mode holds until the phone leaves the field, or the field has been off more than 300 ms (a shorter
drop keeps it, and the ECP count: the field-loss grace period). Transports drive it: the PN532
emulator calls enter_field / field_off / field_on / hear_ecp / poll; the vpcd transport can never
send ECP and never polls, so a requires_ecp phone behind vpcd is a payment device from its first
APDU. Without requires_ecp (the default) none of this applies: the phone answers every poll and
its VAS applet.

Answers (after those, every other APDU goes to `Card`: payment AIDs, UID read, GET RESPONSE):
  SELECT OSE.VAS.01        -> 6F {50 wallet, 9F21 version, 9F24 random nonce, 9F23 capabilities} 9000
  SELECT 2PAY.SYS.DDF01    -> the PPSE FCI listing Mastercard (priority 1) and Visa (priority 2)
  GET VAS DATA 80 CA 01 P2 (only while OSE.VAS.01 is selected; another SELECT deselects it):
    P2 01, 9F25 of a pass   -> 70 {9F2A 00, 9F27 cryptogram} 9000
    P2 01, needs_auth pass  -> 6287          P2 01, unknown 9F25 -> 6A83
    P2 00 (URL only)        -> 9000 with no data
    bad Lc -> 6700; P1 not 01 or P2 not 00/01 -> 6B00; bad TLV or 9F25 not 32 bytes -> 6A80;
    9F22 absent or not 0100 -> 6340

Misbehaviours (`misbehave`; they change GET VAS DATA answers that would succeed, except
no_vas_applet):
  none                  as above
  truncated_tlv         the 70 template without its last 16 bytes (its length claims them)
  missing_9f27          70 03 9F2A 00, 9000
  oversized_cryptogram  a real 130-byte cryptogram (message padded with "." to 74 bytes), 9F27 81 82
  chain_61xx            61xx, then the correct answer by GET RESPONSE (in Le-sized pieces)
  chain_forever         61 10, and 61 10 (no data) to every GET RESPONSE that follows
  no_vas_applet         SELECT OSE.VAS.01 -> 6A82 (and GET VAS DATA -> 6D00), like a plain card
  oversized_label       SELECT OSE.VAS.01's 50 wallet label is 8000 bytes of 01 (82 1F40 length)
  oversized_fci         SELECT of the Mastercard application -> an 8 KiB FCI, valid BER-TLV: its
                        50 label is 8000 bytes of "A" (84 and 87 as usual)
  oversized_uid         FF CA 00 00 (the UID read) -> a UID of 4096 bytes of 04, 9000
  wrong_le              6C00 ("wrong Le, 256 available") to every GET VAS DATA, resent ones too
  empty_answer          GET VAS DATA answered with 0 bytes: no data and no status word (vpcd then
                        never completes the exchange: pcsc-lite waits until the card leaves)
  one_byte_answer       GET VAS DATA answered with the single byte 90: half a status word
  contradictory_tlv     the 70 template's length says 16 bytes fewer than its 9F27 inside holds
                        (every byte is sent: the nesting and the length disagree)
  duplicate_9f27        the 70 template holds two 9F27: the pass's cryptogram, then a second one
                        for the same key with the message "forged 0666"
  replayed_cryptogram   the pass's last answer (the same cryptogram bytes) sent again; a fresh one
                        only if this phone never answered for that pass

Control commands (added to virtual_card.py's; one JSON line each):
  misbehave MODE                    {"ok": true, "misbehave": MODE}
  variant A|B                       {"ok": true, "variant": "B"}
  clock-offset SECONDS              {"ok": true, "clock_offset_s": -3600}
  needs-auth PASS_TYPE_ID on|off    {"ok": true, "pass_type_id": ID, "needs_auth": true}
  timestamp PASS_TYPE_ID SECONDS|now
                                    {"ok": true, "pass_type_id": ID, "timestamp": 774000000}
                                    (a fixed Apple-epoch timestamp for that pass; `now` drops it,
                                    back to the clock plus clock_offset_s: "timestamp": null)
  apdus                             {"ok": true, "apdus": ["00A404000A4F53452E5641532E303100", ...]}
                                    (command APDUs of the last or current tap, hex, upper case)
  requires-ecp on|off               {"ok": true, "requires_ecp": true}
  ecp-cycles N                      {"ok": true, "ecp_cycles": 2}
  `stats` gains "vas": counters since start (select_vas, get_vas_data, success, not_found,
  needs_auth, url_only), and "ecp": requires_ecp, ecp_cycles, heard (ECP frames since entering
  the field), polls_without_ecp, mode (null, "vas" or "payment"), tci (hex of the last ECP's
  TCI), payment_only.
"""

import hashlib
import json
import os
import struct
import threading
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from card_model import Card

VAS_AID = "4F53452E5641532E3031"  # OSE.VAS.01
PPSE_AID = "325041592E5359532E4444463031"  # 2PAY.SYS.DDF01
MASTERCARD_AID = "A0000000041010"
VISA_AID = "A0000000031010"

APPLE_EPOCH_UNIX = 978307200  # 2001-01-01 00:00:00 UTC
MAX_MESSAGE_BYTES = 64
OVERSIZED_MESSAGE_BYTES = 74  # 4 + 32 + (4 + 74) + 16 = 130-byte cryptogram
KDF_ALGORITHM_ID = b"\x0did-aes256-GCM"
KDF_PARTY = b"ApplePay encrypted VAS data"
GCM_IV = bytes(16)
ECP_GRACE_NS = 300_000_000  # a field drop shorter than this keeps the phone's ECP state (§7.3)
MISBEHAVIOURS = (
    "none", "truncated_tlv", "missing_9f27", "oversized_cryptogram", "chain_61xx", "chain_forever", "no_vas_applet",
    "oversized_label", "oversized_fci", "oversized_uid", "wrong_le", "empty_answer", "contradictory_tlv", "duplicate_9f27",
    "replayed_cryptogram", "one_byte_answer",
)
OVERSIZED_BYTES = 8000  # a wallet label or an FCI label (docs/socket-api.md's example length)
OVERSIZED_UID_BYTES = 4096
FORGED_MESSAGE = b"forged 0666"
VARIANTS = ("A", "B")

SW_OK = b"\x90\x00"
# The phone's ATS (TL T0 TA1 TB1 TC1, no historical bytes), so its PC/SC part 3 ATR is the
# ISO 14443-4 one without history, 3B 80 80 01 01. An illustration: not read from a real iPhone.
PHONE_ATS = "0578807002"


def tlv_header(tag, length):
    """A BER-TLV tag (hex string) and definite length (short, 81 or 82 form)."""
    if length < 0x80:
        encoded = bytes([length])
    elif length < 0x100:
        encoded = bytes([0x81, length])
    else:
        encoded = bytes([0x82]) + struct.pack(">H", length)
    return bytes.fromhex(tag) + encoded


def encode_tlv(tag, value):
    """BER-TLV: tag (hex string), definite length (short, 81 or 82 form), value."""
    return tlv_header(tag, len(value)) + value


def parse_tlv(data):
    """Top-level BER-TLV objects of `data` as {tag hex (upper case): value}; ValueError if malformed."""
    fields = {}
    index = 0
    while index < len(data):
        start = index
        index += 1
        if data[start] & 0x1F == 0x1F:
            while index < len(data) and data[index] & 0x80:
                index += 1
            index += 1
        if index >= len(data):
            raise ValueError("TLV ends inside a tag or before its length")
        tag = data[start:index].hex().upper()
        length = data[index]
        index += 1
        if length & 0x80:
            count = length & 0x7F
            if count == 0 or count > 2 or index + count > len(data):
                raise ValueError("bad TLV length")
            length = int.from_bytes(data[index : index + count], "big")
            index += count
        if index + length > len(data):
            raise ValueError("TLV value runs past the data")
        fields[tag] = data[index : index + length]
        index += length
    return fields


def sha256(data):
    return hashlib.sha256(data).digest()


def x_coordinate(public_key):
    """The 32-byte big-endian X of a P-256 public key."""
    return public_key.public_numbers().x.to_bytes(32, "big")


def key_id(public_key):
    """VAS key id (§5.1): the first 4 bytes of SHA-256(X of the merchant public key)."""
    return sha256(x_coordinate(public_key))[:4]


def shared_info_and_aad(variant, pass_hash):
    """KDF SharedInfo and GCM AAD of §5.3 variant A or B."""
    if variant == "A":
        return KDF_ALGORITHM_ID + KDF_PARTY + pass_hash, b""
    if variant == "B":
        return KDF_PARTY, pass_hash
    raise ValueError("variant must be A or B, not %r" % variant)


def make_cryptogram(merchant_public, pass_type_id, plaintext, variant, ephemeral=None):
    """The 9F27 value (§5, run backwards): key id, ephemeral X, AES-256-GCM(plaintext) + tag.

    `ephemeral` (a P-256 private key) is for tests with fixed vectors; by default a fresh one."""
    ephemeral = ephemeral or ec.generate_private_key(ec.SECP256R1())
    shared_secret = ephemeral.exchange(ec.ECDH(), merchant_public)
    shared_info, aad = shared_info_and_aad(variant, sha256(pass_type_id.encode()))
    key = sha256(shared_secret + b"\x00\x00\x00\x01" + shared_info)
    sealed = AESGCM(key).encrypt(GCM_IV, plaintext, aad or None)
    return key_id(merchant_public) + x_coordinate(ephemeral.public_key()) + sealed


def load_public_key(path):
    """The P-256 public key in a PEM file holding a public or an (unencrypted) private key."""
    with open(path, "rb") as handle:
        pem = handle.read()
    try:
        key = serialization.load_pem_private_key(pem, password=None).public_key()
    except (ValueError, TypeError):
        key = serialization.load_pem_public_key(pem)
    if not isinstance(key, ec.EllipticCurvePublicKey) or key.curve.name != "secp256r1":
        raise ValueError("%s: not a P-256 key" % path)
    return key


def apple_timestamp(offset_s):
    """Seconds since 2001-01-01 UTC, now plus `offset_s`, as 4 big-endian bytes."""
    return struct.pack(">I", int(time.time()) + int(offset_s) - APPLE_EPOCH_UNIX)


def checked_timestamp(value):
    """A fixed pass timestamp (seconds since 2001-01-01 UTC) as an int in 0...2^32-1, or None."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError("timestamp must be whole seconds since 2001-01-01 UTC, not %r" % (value,))
    seconds = value
    if not 0 <= seconds <= 0xFFFFFFFF:
        raise ValueError("timestamp %d does not fit in 4 bytes" % seconds)
    return seconds


def selected_aid(apdu):
    """The AID (hex, upper case) of a SELECT by name, or None for any other or malformed APDU."""
    if len(apdu) < 6 or apdu[1] != 0xA4 or apdu[2] != 0x04 or len(apdu) < 5 + apdu[4]:
        return None
    return apdu[5 : 5 + apdu[4]].hex().upper()


def application_fci(aid, label, priority):
    """A payment application's FCI: 6F {84 AID, A5 {50 label, 87 priority}}."""
    proprietary = encode_tlv("50", label.encode()) + encode_tlv("87", bytes([priority]))
    return encode_tlv("6F", encode_tlv("84", bytes.fromhex(aid)) + encode_tlv("A5", proprietary))


def ppse_fci(entries):
    """The PPSE FCI: 6F {84 "2PAY.SYS.DDF01", A5 {BF0C {61 {4F AID, 50 label, 87 priority}...}}}."""
    directory = b"".join(
        encode_tlv("61", encode_tlv("4F", bytes.fromhex(aid)) + encode_tlv("50", label.encode()) + encode_tlv("87", bytes([priority])))
        for aid, label, priority in entries
    )
    return encode_tlv("6F", encode_tlv("84", bytes.fromhex(PPSE_AID)) + encode_tlv("A5", encode_tlv("BF0C", directory)))


class WalletPass:
    """One NFC pass in the wallet: its pass type id, merchant public key and message, and an
    optional fixed timestamp (seconds since 2001-01-01 UTC; None: the phone's clock)."""

    def __init__(self, pass_type_id, public_key, message, needs_auth=False, timestamp=None):
        self.pass_type_id = pass_type_id
        self.public_key = public_key
        self.message = message.encode("utf-8")
        if len(self.message) > MAX_MESSAGE_BYTES:
            raise ValueError("%s: message longer than %d bytes" % (pass_type_id, MAX_MESSAGE_BYTES))
        self.needs_auth = needs_auth
        self.timestamp = checked_timestamp(timestamp)
        self.hash = sha256(pass_type_id.encode())

    @classmethod
    def from_config(cls, entry, folder):
        path = os.path.join(folder, entry["key"])
        return cls(entry["pass_type_id"], load_public_key(path), entry.get("message", ""), bool(entry.get("needs_auth", False)),
                   entry.get("timestamp"))


class Phone(Card):
    """An iPhone with Apple Wallet: the VAS applet and the PPSE over the base card's applications."""

    control_commands = ("misbehave MODE, variant A|B, clock-offset SECONDS, needs-auth PASS_TYPE_ID on|off, "
                        "timestamp PASS_TYPE_ID SECONDS|now, apdus, requires-ecp on|off, ecp-cycles N")

    def __init__(self, config, profile=None, folder="."):
        super().__init__(dict({"ats": PHONE_ATS}, **(profile or {})))
        self.wallet = config.get("wallet", "ApplePay")
        self.version = bytes.fromhex(config.get("version", "0100"))
        self.capabilities = bytes.fromhex(config.get("capabilities", "0000003E"))
        self.variant = self.checked_variant(config.get("variant", "A"))
        self.clock_offset_s = int(config.get("clock_offset_s", 0))
        self.misbehave = self.checked_misbehaviour(config.get("misbehave", "none"))
        passes = [WalletPass.from_config(entry, folder) for entry in config.get("passes", [])]
        self.passes = {wallet_pass.hash: wallet_pass for wallet_pass in passes}
        self.add_payment_applications()
        self.lock = threading.Lock()
        self.received = []
        self.last_answers = {}  # pass hash -> the last 70 template answered for it (replayed_cryptogram)
        self.counters = dict.fromkeys(("select_vas", "get_vas_data", "success", "not_found", "needs_auth", "url_only"), 0)
        self.vas_selected = False
        self.endless_chain = False
        self.requires_ecp = self.checked_requires_ecp(config.get("requires_ecp", False))
        self.ecp_cycles = self.checked_ecp_cycles(config.get("ecp_cycles", 2))
        self.forget_ecp()

    @classmethod
    def from_file(cls, path, profile=None):
        """A phone from a JSON phone file; relative key paths are taken from its folder."""
        with open(path) as handle:
            config = json.load(handle)
        return cls(config, profile, os.path.dirname(os.path.abspath(path)))

    def add_payment_applications(self):
        """PPSE and a Visa application; Mastercard keeps the base card's FCI (label "MasterCard", priority 1)."""
        self.applications.setdefault(VISA_AID, application_fci(VISA_AID, "VISA", 2))
        self.applications[PPSE_AID] = ppse_fci([(MASTERCARD_AID, "MasterCard", 1), (VISA_AID, "VISA", 2)])

    @staticmethod
    def checked_requires_ecp(value):
        if not isinstance(value, bool):
            raise ValueError("requires_ecp must be true or false, not %r" % (value,))
        return value

    @staticmethod
    def checked_ecp_cycles(value):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 255:
            raise ValueError("ecp_cycles must be a whole number from 1 to 255, not %r" % (value,))
        return value

    @staticmethod
    def checked_variant(variant):
        if variant not in VARIANTS:
            raise ValueError("variant must be A or B, not %r" % variant)
        return variant

    @staticmethod
    def checked_misbehaviour(mode):
        if mode not in MISBEHAVIOURS:
            raise ValueError("misbehaviour must be one of %s, not %r" % (", ".join(MISBEHAVIOURS), mode))
        return mode

    # --- Enhanced Contactless Polling (§7.3), driven by the transport -------------------------

    def forget_ecp(self):
        """Back to a phone that has heard nothing: ECP count, polls and decided mode cleared."""
        self.ecp_heard = 0
        self.ecp_tci = None
        self.polls_without_ecp = 0
        self.mode = None
        self.field_off_ns = None

    def enter_field(self):
        """The phone is brought to the reader (and `leave_field`: taken away): it starts afresh."""
        with self.lock:
            self.forget_ecp()

    leave_field = enter_field

    def field_off(self, now_ns):
        """The reader switched its field off; the phone keeps its state for ECP_GRACE_NS."""
        with self.lock:
            if self.field_off_ns is None:
                self.field_off_ns = now_ns

    def field_on(self, now_ns):
        """The field is back: after a drop longer than the grace period the phone starts afresh."""
        with self.lock:
            if self.field_off_ns is not None and now_ns - self.field_off_ns > ECP_GRACE_NS:
                self.forget_ecp()
            self.field_off_ns = None

    def hear_ecp(self, frame):
        """An ECP frame (without CRC) heard in the field: True when it counts (version 1, 5 bytes)."""
        with self.lock:
            if len(frame) != 5 or frame[0] != 0x6A or frame[1] != 0x01:
                return False
            self.ecp_heard += 1
            self.ecp_tci = bytes(frame[2:5])
            return True

    def poll(self):
        """A reader's poll (REQA) while the phone is in the field: whether it answers it now."""
        with self.lock:
            if not self.requires_ecp or self.mode is not None:
                return True
            if self.ecp_heard >= self.ecp_cycles:
                self.mode = "payment" if self.ecp_tci[-1] == 0x03 else "vas"
                return True
            if self.ecp_heard == 0:
                self.polls_without_ecp += 1
                if self.polls_without_ecp >= self.ecp_cycles:
                    self.mode = "payment"
                    return True
            return False

    @property
    def payment_only(self):
        """A requires_ecp phone that has not decided on VAS (behind vpcd: always) hides its VAS applet."""
        return self.requires_ecp and self.mode != "vas"

    def ecp_status(self):
        return {"requires_ecp": self.requires_ecp, "ecp_cycles": self.ecp_cycles, "heard": self.ecp_heard,
                "polls_without_ecp": self.polls_without_ecp, "mode": self.mode,
                "tci": self.ecp_tci.hex().upper() if self.ecp_tci is not None else None, "payment_only": self.payment_only}

    # --- APDUs -----------------------------------------------------------------------------

    def begin_tap(self):
        with self.lock:
            self.pending = b""
            self.received = []
            self.vas_selected = False
            self.endless_chain = False

    def answer(self, apdu):
        with self.lock:
            self.received.append(apdu.hex().upper())
            return self.route(apdu)

    def route(self, apdu):
        """The phone's own answers; anything else goes to the base card."""
        if self.endless_chain and apdu[:2] == b"\x00\xC0":
            return b"\x61\x10"
        self.endless_chain = False
        if self.misbehave == "oversized_uid" and apdu[:4] == b"\xFF\xCA\x00\x00":
            return bytes([0x04]) * OVERSIZED_UID_BYTES + SW_OK
        aid = selected_aid(apdu)
        if aid == VAS_AID:
            return self.select_vas()
        if aid is not None:
            self.vas_selected = False
        if aid == MASTERCARD_AID and self.misbehave == "oversized_fci":
            return application_fci(MASTERCARD_AID, "A" * OVERSIZED_BYTES, 1) + SW_OK
        if self.vas_selected and apdu[:2] == b"\x80\xCA":
            return self.get_vas_data(apdu)
        return super().answer(apdu)

    def select_vas(self):
        """SELECT OSE.VAS.01 (§2.2), or 6A82 when playing a plain card or a payment device."""
        if self.misbehave == "no_vas_applet" or self.payment_only:
            self.vas_selected = False
            return b"\x6A\x82"
        self.vas_selected = True
        self.counters["select_vas"] += 1
        label = bytes([0x01]) * OVERSIZED_BYTES if self.misbehave == "oversized_label" else self.wallet.encode()
        fci = (
            encode_tlv("50", label)
            + encode_tlv("9F21", self.version)
            + encode_tlv("9F24", os.urandom(4))
            + encode_tlv("9F23", self.capabilities)
        )
        return encode_tlv("6F", fci) + SW_OK

    def get_vas_data(self, apdu):
        """GET VAS DATA (§3, §4): status words, URL only, or the pass's cryptogram."""
        if len(apdu) < 5 or len(apdu) not in (5 + apdu[4], 6 + apdu[4]):
            return b"\x67\x00"
        if apdu[2] != 0x01 or apdu[3] not in (0x00, 0x01):
            return b"\x6B\x00"
        if self.misbehave == "wrong_le":
            return b"\x6C\x00"
        if self.misbehave == "empty_answer":
            return b""
        if self.misbehave == "one_byte_answer":
            return b"\x90"
        try:
            fields = parse_tlv(apdu[5 : 5 + apdu[4]])
        except ValueError:
            return b"\x6A\x80"
        if fields.get("9F22") != b"\x01\x00":
            return b"\x63\x40"
        self.counters["get_vas_data"] += 1
        if apdu[3] == 0x00:
            self.counters["url_only"] += 1
            return SW_OK
        pass_hash = fields.get("9F25")
        if pass_hash is None or len(pass_hash) != 32:
            return b"\x6A\x80"
        wallet_pass = self.passes.get(pass_hash)
        if wallet_pass is None:
            self.counters["not_found"] += 1
            return b"\x6A\x83"
        if wallet_pass.needs_auth:
            self.counters["needs_auth"] += 1
            return b"\x62\x87"
        self.counters["success"] += 1
        return self.pass_answer(wallet_pass)

    def pass_answer(self, wallet_pass):
        """The successful answer for a pass, as the current misbehaviour shapes it."""
        token = encode_tlv("9F2A", b"")
        if self.misbehave == "missing_9f27":
            return encode_tlv("70", token) + SW_OK
        if self.misbehave == "replayed_cryptogram" and wallet_pass.hash in self.last_answers:
            return self.last_answers[wallet_pass.hash] + SW_OK
        message = wallet_pass.message
        if self.misbehave == "oversized_cryptogram":
            message = message.ljust(OVERSIZED_MESSAGE_BYTES, b".")[:OVERSIZED_MESSAGE_BYTES]
        if wallet_pass.timestamp is None:
            timestamp = apple_timestamp(self.clock_offset_s)
        else:
            timestamp = struct.pack(">I", wallet_pass.timestamp)
        plaintext = timestamp + message
        cryptogram = make_cryptogram(wallet_pass.public_key, wallet_pass.pass_type_id, plaintext, self.variant)
        body = encode_tlv("70", token + encode_tlv("9F27", cryptogram))
        if self.misbehave in ("none", "replayed_cryptogram"):
            self.last_answers[wallet_pass.hash] = body
        if self.misbehave == "contradictory_tlv":
            inner = token + encode_tlv("9F27", cryptogram)
            return tlv_header("70", len(inner) - 16) + inner + SW_OK
        if self.misbehave == "duplicate_9f27":
            forged = make_cryptogram(wallet_pass.public_key, wallet_pass.pass_type_id, timestamp + FORGED_MESSAGE, self.variant)
            return encode_tlv("70", token + encode_tlv("9F27", cryptogram) + encode_tlv("9F27", forged)) + SW_OK
        if self.misbehave == "truncated_tlv":
            return body[:-16] + SW_OK
        if self.misbehave == "chain_61xx":
            self.pending = body
            return bytes([0x61, len(body) & 0xFF])
        if self.misbehave == "chain_forever":
            self.endless_chain = True
            return b"\x61\x10"
        return body + SW_OK

    # --- control commands ------------------------------------------------------------------

    def control_handlers(self):
        """The phone's line commands (Card.control runs them under the lock)."""
        return {
            "misbehave": self.set_misbehaviour,
            "variant": self.set_variant,
            "clock-offset": self.set_clock_offset,
            "needs-auth": self.set_needs_auth,
            "timestamp": self.set_timestamp,
            "apdus": self.tap_apdus,
            "requires-ecp": self.set_requires_ecp,
            "ecp-cycles": self.set_ecp_cycles,
        }

    def set_misbehaviour(self, mode):
        self.misbehave = self.checked_misbehaviour(mode)
        return {"ok": True, "misbehave": mode}

    def set_variant(self, variant):
        self.variant = self.checked_variant(variant.upper())
        return {"ok": True, "variant": self.variant}

    def set_clock_offset(self, seconds):
        self.clock_offset_s = int(seconds)
        return {"ok": True, "clock_offset_s": self.clock_offset_s}

    def wallet_pass(self, pass_type_id):
        wallet_pass = self.passes.get(sha256(pass_type_id.encode()))
        if wallet_pass is None:
            raise ValueError("no pass %r on this phone" % pass_type_id)
        return wallet_pass

    def set_needs_auth(self, pass_type_id, state):
        wallet_pass = self.wallet_pass(pass_type_id)
        if state not in ("on", "off"):
            raise ValueError("needs-auth takes on or off, not %r" % state)
        wallet_pass.needs_auth = state == "on"
        return {"ok": True, "pass_type_id": pass_type_id, "needs_auth": wallet_pass.needs_auth}

    def set_timestamp(self, pass_type_id, seconds):
        wallet_pass = self.wallet_pass(pass_type_id)
        try:
            wallet_pass.timestamp = None if seconds == "now" else checked_timestamp(int(seconds))
        except ValueError:
            raise ValueError("timestamp takes whole seconds since 2001-01-01 UTC (0 to 4294967295) or now, not %r" % seconds) from None
        return {"ok": True, "pass_type_id": pass_type_id, "timestamp": wallet_pass.timestamp}

    def set_requires_ecp(self, state):
        if state not in ("on", "off"):
            raise ValueError("requires-ecp takes on or off, not %r" % state)
        self.requires_ecp = state == "on"
        return {"ok": True, "requires_ecp": self.requires_ecp}

    def set_ecp_cycles(self, cycles):
        try:
            self.ecp_cycles = self.checked_ecp_cycles(int(cycles))
        except ValueError:
            raise ValueError("ecp-cycles takes a whole number from 1 to 255, not %r" % cycles) from None
        return {"ok": True, "ecp_cycles": self.ecp_cycles}

    def tap_apdus(self):
        return {"ok": True, "apdus": list(self.received)}

    def status(self):
        with self.lock:
            return {"vas": dict(self.counters), "ecp": self.ecp_status()}
