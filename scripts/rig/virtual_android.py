"""PassTap's virtual Android phone: a `Card` that answers like an Android phone with Google Wallet
passes, through Google's Smart Tap 2.1 protocol.

Used through `virtual_card.py --phone FILE` (and `pn532_emulator.py --phone FILE`) when the phone
file's "wallet" is "AndroidPay"; every mode of virtual_card.py works with it. Written from the
public documentation only (docs/smarttap.md lists the sources; "Sources" below says which one each
byte follows). The phone verifies, derives and encrypts with Python's `cryptography`,
independently of PassTap's Swift code.

Phone file (JSON; every key but "collectors" and "passes" optional, defaults shown):
  {"wallet": "AndroidPay", "legacy_select": false, "compression": "auto", "chunk_bytes": 250,
   "misbehave": "none", "customer_id": "<16 bytes hex>", "language": "en",
   "collectors": [{"collector_id": 20180608, "key_version": 1, "key": "collector.pem"}],
   "passes": [{"collector_id": 20180608, "type": "loyalty", "issuer_id": 1000,
               "object_id": "0000000000000001", "value": "member 0042"}]}
  collectors: the collectors whose readers this phone trusts (Google tells a real phone the
    collector keys of its passes): key is a PEM file with the P-256 public (or private) key, a
    relative path taken from the phone file's folder.
  passes: type is one of loyalty, offer, gift_card, generic; issuer_id 4 bytes (default 1000 +
    the pass's index); object_id 8 bytes hex (default: the index + 1); value at most 1000 bytes
    of UTF-8 (the pass's smartTapRedemptionValue).
  legacy_select: an older phone: the OSE.VAS.01 answer has no device nonce and key, so the reader
    must SELECT A000000476D0000111 (the nonce comes in its mdn record, the key in NEGOTIATE's).
  compression: auto (zlib when the reader's POS capabilities offer it, flag 0x40) or never.
  chunk_bytes: the most response data per APDU (16 to 255); longer answers are chained by 9100.

Answers (after those, every other APDU goes to `Card`: payment AIDs, UID read, GET RESPONSE):
  SELECT OSE.VAS.01   -> 6F {50 "AndroidPay", C0 0001, C1 flags, [C2 nonce, C3 key], A5 {BF0C {61
                         {4F A000000476D0000111, 87 01, 73 {DF6D 0000, DF4D 0001, DF62 03|02}}}}} 9000
  SELECT A000000476D0000111 -> 0000 0001 + NDEF {mdn: 04 + nonce} 9000 (the same nonce as C2)
  NEGOTIATE 90 53 00 00 Lc {ngr: 0001 {ses, cpr {nonce, auth, key, version, {sig, cld}}}} 00
                      -> {nrs {ses seq+1, dpk}} 9000; 9500 when the collector is known but the key
                         version or the signature is not (the signature is checked over reader
                         nonce | device nonce (zeros without live auth) | collector id | reader key);
                         9402 for a request it cannot parse; 9502 for a version other than 0001
  GET DATA 90 50 00 00 Lc {srq: 0001 {ses, mer {cld}, slr {str...}, [pcr]}} 00
                      -> {srs {ses seq+1, reb: flags + IV(12) + AES-128-CTR + HMAC-SHA256(32)}} 9000,
                         chained: the first chunk_bytes with 9100, the rest by GET MORE DATA;
                         9001 and no data when no pass of that collector and type is on the phone
                         (or the collector is unknown); 6985 before NEGOTIATE; 9402 for a session
                         id other than NEGOTIATE's; 9407 for a mer collector other than NEGOTIATE's
  GET MORE DATA 90 C0 00 00 00 -> the next chunk, 9100 while more remains, else 9000; 9404 if none
  The record bundle (decrypted): asv {i, ly|of|gc|gr {oid, n}} per pass, then asv {i, cus {cid,
  cpl, cut}} when the service list asks for all (00, 01) or the customer (40); zlib-compressed
  (flag 0x02) when the reader offers zlib and compression is auto; always encrypted (flag 0x01).

Misbehaviours (`misbehave`):
  none                the above
  user_must_choose    GET DATA -> 9302 (several passes: the phone shows its carousel), no data
  no_pass             GET DATA -> 9001, no data, whatever the phone holds
  retry               GET DATA -> 9200 (transient failure), no data
  too_many_requests   GET DATA -> 9406 (a terminal error), no data
  bad_mac             the bundle's HMAC has its last byte flipped
  truncated_records   the decrypted bundle is cut 8 bytes short (its records claim more), under a
                      correct HMAC: only the inner NDEF is wrong
  wrong_lengths       the srs record claims 64 bytes more payload than the message holds
  endless_9100        GET DATA and every GET MORE DATA answer a chunk of 00 with 9100, for ever
  oversized_inflation the bundle is 1 MiB of zeros deflated (about 1 KiB), flagged compressed
                      (even if the reader did not offer zlib), correctly encrypted
  bad_dpk             NEGOTIATE's dpk (and C3) is 33 bytes that are no P-256 point

Control commands (added to virtual_card.py's; one JSON line each):
  misbehave MODE                  {"ok": true, "misbehave": MODE}
  legacy-select on|off            {"ok": true, "legacy_select": true}
  compression auto|never          {"ok": true, "compression": "never"}
  chunk-bytes N                   {"ok": true, "chunk_bytes": 64}
  pass-value OBJECT_ID VALUE      {"ok": true, "object_id": ..., "value": ...} (VALUE: one word)
  apdus                           {"ok": true, "apdus": [...]} (command APDUs of the last or current tap)
  `stats` gains "smarttap": counters since start (select_ose, select_smart_tap, negotiate,
  auth_failed, get_data, get_more_data, success, no_pass) and its "last": what the last GET DATA
  asked for (collector_id, key_version, live_auth, service_types, pos_capabilities hex,
  compressed, bundle_bytes, response_bytes, chunks, objects), and its "busy_ns": the time the phone
  spent answering in the last or current tap (its Python cryptography), for the bench.

Sources (docs/smarttap.md, "Testing without a phone", has the links):
  Google's Smart Tap reference (developers.google.com/wallet/smart-tap): the commands, the status
  words by first byte, the cpr layout and live authentication, the mer/slr/str/pcr records;
  kormax/google-smart-tap README: every record's bytes (its published NEGOTIATE and GET DATA
  exchanges), the HKDF salt and info, IV | ciphertext | HMAC, the OSE.VAS.01 answer's C0-C3 and
  directory, the status words 9302 and 9406; Google's sample reader (kmandalas/smart-tap-sample-app,
  Apache-2.0): the record bundle flag (2 and 3 mean compressed), the counter block IV | 00000000,
  the `n` record found by its id; proxmark3 client/src/cmdhfgst.c: the status words 9402-9407,
  9500, 9502, and the decompressed record bundle of Google's demo pass in its zlib self-test, whose
  shape the bundle here copies: i = 04, issuer type (01 merchant, 02 wallet), 4-byte issuer id;
  oid = 04 + 8 bytes; n and cpl = well-known type T with the name as id, payload 00 + the bytes;
  cid and cut = 04 + 16 bytes.
"""

import collections
import hashlib
import hmac
import json
import os
import threading
import time
import zlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

import tag_memory
from card_model import Card
from virtual_iphone import (
    MASTERCARD_AID, PHONE_ATS, PPSE_AID, SW_OK, VAS_AID, VISA_AID, application_fci, encode_tlv, load_public_key,
    ppse_fci, selected_aid,
)

SMART_TAP_AID = "A000000476D0000111"
WALLET = "AndroidPay"
VERSION = b"\x00\x01"  # Smart Tap 2.1: the minor version every command carries
TNF_WELL_KNOWN = 0x01
TNF_EXTERNAL = 0x04
FORMAT_UNSPECIFIED = 0x00
FORMAT_BINARY = 0x04
ISSUER_MERCHANT = 0x01
ISSUER_WALLET = 0x02
SESSION_OK = 0x01
BUNDLE_ENCRYPTED = 0x01
BUNDLE_COMPRESSED = 0x02
POS_ZLIB_SUPPORTED = 0x40
IV_BYTES = 12
MAC_BYTES = 32
# Object record types and the service type bytes (str) that ask for them.
OBJECT_TYPES = {"loyalty": b"ly", "offer": b"of", "gift_card": b"gc", "generic": b"gr"}
SERVICE_TYPES = {"loyalty": 0x03, "offer": 0x04, "gift_card": 0x05, "generic": 0x12}
SERVICE_ALL, SERVICE_ALL_EXCEPT_PPSE, SERVICE_CUSTOMER = 0x00, 0x01, 0x40
MAX_VALUE_BYTES = 1000
MAX_NDEF_RECORDS = 64
INFLATION_BOMB_BYTES = 1 << 20
MISBEHAVIOURS = (
    "none", "user_must_choose", "no_pass", "retry", "too_many_requests", "bad_mac", "truncated_records",
    "wrong_lengths", "endless_9100", "oversized_inflation", "bad_dpk",
)
# GET DATA status words of the misbehaviours that answer with no data.
STATUS_MODES = {"user_must_choose": b"\x93\x02", "no_pass": b"\x90\x01", "retry": b"\x92\x00", "too_many_requests": b"\x94\x06"}
SW_MORE = b"\x91\x00"
SW_NO_PASS = b"\x90\x01"
SW_PARSING_FAILURE = b"\x94\x02"
SW_NOTHING_MORE = b"\x94\x04"
SW_NO_MERCHANT = b"\x94\x07"
SW_AUTH_FAILED = b"\x95\x00"
SW_VERSION = b"\x95\x02"
SW_CONDITIONS = b"\x69\x85"
NOT_A_POINT = b"\x02" + b"\xFF" * 32  # x >= p: on no curve

Record = collections.namedtuple("Record", "tnf type id payload")


# --- NDEF (NFC Forum NDEF 1.0: MB ME CF SR IL TNF, type length, payload length, [id length]) ---

def record(name, payload, tnf=TNF_EXTERNAL, named_by_id=False):
    """A Smart Tap record: its short name as the type (and as the id too with `named_by_id`)."""
    name = name.encode() if isinstance(name, str) else name
    return Record(tnf, name, name if named_by_id else b"", bytes(payload))


def text_record(name, value):
    """A Smart Tap value as the published bundle carries it: well-known type T, the name as its id,
    the payload 00 (unspecified format) then the bytes."""
    return Record(TNF_WELL_KNOWN, b"T", name.encode(), bytes([FORMAT_UNSPECIFIED]) + value)


def encode_ndef(records):
    """An NDEF message of these records (MB on the first, ME on the last, SR when the payload fits
    a byte), by the rig's one NDEF encoder, tag_memory.message."""
    return tag_memory.message([(item.tnf, item.type, item.payload, item.id) for item in records])


def parse_ndef(data):
    """The records of an NDEF message; ValueError for anything malformed (chunks refused)."""
    records, index = [], 0
    while index < len(data):
        if len(records) >= MAX_NDEF_RECORDS:
            raise ValueError("more than %d records" % MAX_NDEF_RECORDS)
        header = data[index]
        if header & 0x20:
            raise ValueError("chunked record")
        if (header & 0x80) != (0x80 if not records else 0):
            raise ValueError("MB flag wrong at offset %d" % index)
        index += 1
        fixed = 2 if header & 0x10 else 5
        if index + fixed > len(data):
            raise ValueError("record header runs past the data")
        type_length = data[index]
        payload_length = data[index + 1] if header & 0x10 else int.from_bytes(data[index + 1 : index + 5], "big")
        index += fixed
        id_length = 0
        if header & 0x08:
            if index >= len(data):
                raise ValueError("id length runs past the data")
            id_length = data[index]
            index += 1
        end = index + type_length + id_length + payload_length
        if end > len(data):
            raise ValueError("record of %d bytes runs past the data" % payload_length)
        kind = data[index : index + type_length]
        ident = data[index + type_length : index + type_length + id_length]
        records.append(Record(header & 0x07, bytes(kind), bytes(ident), bytes(data[end - payload_length : end])))
        index = end
        if header & 0x40:
            if index != len(data):
                raise ValueError("bytes after the ME record")
            return records
    raise ValueError("no ME record" if records else "empty message")


def find(records, name):
    """The first record named `name` (by type, or by id as older phones did), or ValueError."""
    name = name.encode()
    for item in records:
        if item.type == name or item.id == name:
            return item
    raise ValueError("no %s record" % name.decode())


def nested(records, name):
    """The records inside the payload of the record named `name`."""
    return parse_ndef(find(records, name).payload)


# --- the cryptography --------------------------------------------------------------------------

def compressed_point(public_key):
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)


def session_keys(device_private, reader_public, device_public_bytes, signed_data, signature):
    """ECDH, then HKDF-SHA256 (salt: the device's compressed key; info: signed data | signature)
    into 48 bytes: the AES-128 key and the HMAC-SHA256 key."""
    shared = device_private.exchange(ec.ECDH(), reader_public)
    material = HKDF(hashes.SHA256(), 48, salt=device_public_bytes, info=signed_data + signature).derive(shared)
    return material[:16], material[16:]


def seal(plaintext, aes_key, mac_key, iv=None):
    """IV (12 bytes) | AES-128-CTR(plaintext), counter block IV | 00000000 | HMAC-SHA256(IV | ciphertext)."""
    iv = iv if iv is not None else os.urandom(IV_BYTES)
    encryptor = Cipher(algorithms.AES(aes_key), modes.CTR(iv + bytes(4))).encryptor()
    body = iv + encryptor.update(plaintext) + encryptor.finalize()
    return body + hmac.new(mac_key, body, hashlib.sha256).digest()


def collector_bytes(value):
    """A collector id as signed: its last 4 bytes, zeros on the left when shorter."""
    return bytes(4 - min(len(value), 4)) + value[-4:]


# --- the wallet ----------------------------------------------------------------------------------

class SmartTapPass:
    """One Smart Tap pass: its collector, object type, issuer id, object id and redemption value."""

    def __init__(self, collector_id, kind, issuer_id, object_id, value):
        if kind not in OBJECT_TYPES:
            raise ValueError("pass type must be one of %s, not %r" % (", ".join(OBJECT_TYPES), kind))
        self.collector_id = int(collector_id)
        self.kind = kind
        self.issuer_id = int(issuer_id)
        if not 0 <= self.issuer_id < 1 << 32:
            raise ValueError("issuer_id %d does not fit in 4 bytes" % self.issuer_id)
        self.object_id = bytes.fromhex(object_id)
        if len(self.object_id) != 8:
            raise ValueError("object_id must be 8 bytes of hex, not %r" % object_id)
        self.set_value(value)

    def set_value(self, value):
        encoded = value.encode("utf-8")
        if len(encoded) > MAX_VALUE_BYTES:
            raise ValueError("value longer than %d bytes" % MAX_VALUE_BYTES)
        self.value = encoded

    @classmethod
    def from_config(cls, entry, index):
        return cls(entry["collector_id"], entry.get("type", "loyalty"), entry.get("issuer_id", 1000 + index),
                   entry.get("object_id", "%016X" % (index + 1)), entry.get("value", ""))

    def service_value(self):
        """asv {i, <type> {oid, n}}."""
        issuer = record("i", bytes([FORMAT_BINARY, ISSUER_MERCHANT]) + self.issuer_id.to_bytes(4, "big"))
        fields = [record("oid", bytes([FORMAT_BINARY]) + self.object_id), text_record("n", self.value)]
        return record("asv", encode_ndef([issuer, record(OBJECT_TYPES[self.kind], encode_ndef(fields))]))


class Session:
    """One tap's Smart Tap state: nonce and ephemeral key, then the negotiated session."""

    def __init__(self):
        self.device_nonce = None
        self.device_key = None
        self.negotiated = None  # dict: session_id, collector_id, aes_key, mac_key, key_version, live_auth
        self.pending = b""
        self.endless = False


class Phone(Card):
    """An Android phone with Google Wallet: OSE.VAS.01, Smart Tap 2 and the PPSE over the base card."""

    control_commands = "misbehave MODE, legacy-select on|off, compression auto|never, chunk-bytes N, pass-value OBJECT_ID VALUE, apdus"

    def __init__(self, config, profile=None, folder="."):
        super().__init__(dict({"ats": PHONE_ATS}, **(profile or {})))
        if config.get("wallet", WALLET) != WALLET:
            raise ValueError("an Android phone's wallet is %s, not %r" % (WALLET, config.get("wallet")))
        self.legacy_select = self.checked_switch("legacy_select", config.get("legacy_select", False))
        self.compression = self.checked_compression(config.get("compression", "auto"))
        self.chunk_bytes = self.checked_chunk_bytes(config.get("chunk_bytes", 250))
        self.misbehave = self.checked_misbehaviour(config.get("misbehave", "none"))
        self.customer_id = bytes.fromhex(config.get("customer_id", "00112233445566778899AABBCCDDEEFF"))
        if len(self.customer_id) != 16:
            raise ValueError("customer_id must be 16 bytes of hex")
        self.language = config.get("language", "en").encode("ascii")
        self.collectors = {}
        for entry in config.get("collectors", []):
            key = load_public_key(os.path.join(folder, entry["key"]))
            self.collectors[int(entry["collector_id"])] = (int(entry.get("key_version", 1)), key)
        self.passes = [SmartTapPass.from_config(entry, index) for index, entry in enumerate(config.get("passes", []))]
        self.applications.setdefault(VISA_AID, application_fci(VISA_AID, "VISA", 2))
        self.applications[PPSE_AID] = ppse_fci([(MASTERCARD_AID, "MasterCard", 1), (VISA_AID, "VISA", 2)])
        self.lock = threading.Lock()
        self.received = []
        self.counters = dict.fromkeys(("select_ose", "select_smart_tap", "negotiate", "auth_failed", "get_data",
                                       "get_more_data", "success", "no_pass"), 0)
        self.last = None
        self.selected = False
        self.session = Session()
        self.busy_ns = 0

    @classmethod
    def from_file(cls, path, profile=None):
        with open(path) as handle:
            config = json.load(handle)
        return cls(config, profile, os.path.dirname(os.path.abspath(path)))

    @staticmethod
    def checked_switch(name, value):
        if not isinstance(value, bool):
            raise ValueError("%s must be true or false, not %r" % (name, value))
        return value

    @staticmethod
    def checked_compression(value):
        if value not in ("auto", "never"):
            raise ValueError("compression must be auto or never, not %r" % (value,))
        return value

    @staticmethod
    def checked_chunk_bytes(value):
        if isinstance(value, bool) or not isinstance(value, int) or not 16 <= value <= 255:
            raise ValueError("chunk_bytes must be a whole number from 16 to 255, not %r" % (value,))
        return value

    @staticmethod
    def checked_misbehaviour(mode):
        if mode not in MISBEHAVIOURS:
            raise ValueError("misbehaviour must be one of %s, not %r" % (", ".join(MISBEHAVIOURS), mode))
        return mode

    # Transports that poll (the PN532 emulator) ask a phone these; an Android phone needs no ECP.
    def enter_field(self):
        pass

    leave_field = enter_field

    def field_off(self, now_ns):
        pass

    field_on = field_off

    def hear_ecp(self, frame):
        return False

    def poll(self):
        return True

    # --- APDUs -----------------------------------------------------------------------------

    def begin_tap(self):
        with self.lock:
            self.pending = b""
            self.received = []
            self.selected = False
            self.session = Session()
            self.busy_ns = 0

    def answer(self, apdu):
        with self.lock:
            started = time.monotonic_ns()
            self.received.append(apdu.hex().upper())
            try:
                return self.route(apdu)
            finally:
                self.busy_ns += time.monotonic_ns() - started

    def route(self, apdu):
        aid = selected_aid(apdu)
        if aid == VAS_AID:
            return self.select_ose()
        if aid == SMART_TAP_AID:
            return self.select_smart_tap()
        if aid is not None:
            self.selected = False
        if self.selected and apdu[:1] == b"\x90":
            try:
                data = self.command_data(apdu)
            except ValueError:
                return b"\x67\x00"
            if apdu[1] == 0x53:
                return self.negotiate(data)
            if apdu[1] == 0x50:
                return self.get_data(data)
            if apdu[1] == 0xC0:
                return self.get_more_data()
            return b"\x6D\x00"
        return super().answer(apdu)

    @staticmethod
    def command_data(apdu):
        """The data of a command APDU (short or extended Lc, Le optional); ValueError if the lengths disagree."""
        body = apdu[4:]
        if len(body) <= 1:
            return b""
        if body[0] == 0 and len(body) >= 3:
            length = int.from_bytes(body[1:3], "big")
            if len(body) in (3 + length, 5 + length):
                return body[3 : 3 + length]
        if len(body) in (1 + body[0], 2 + body[0]):
            return body[1 : 1 + body[0]]
        raise ValueError("Lc does not match the data")

    def ensure_device_key(self):
        if self.session.device_key is None:
            self.session.device_key = ec.generate_private_key(ec.SECP256R1())

    def device_key_bytes(self):
        if self.misbehave == "bad_dpk":
            return NOT_A_POINT
        return compressed_point(self.session.device_key.public_key())

    def select_ose(self):
        """SELECT OSE.VAS.01: the wallet, version, flags, and (unless legacy) nonce and key."""
        self.selected = True
        self.counters["select_ose"] += 1
        if self.session.device_nonce is None:
            self.session.device_nonce = os.urandom(32)
        fci = encode_tlv("50", WALLET.encode()) + encode_tlv("C0", VERSION) + encode_tlv("C1", bytes.fromhex("CC00000000008080"))
        if not self.legacy_select:
            self.ensure_device_key()
            fci += encode_tlv("C2", self.session.device_nonce) + encode_tlv("C3", self.device_key_bytes())
        versions = encode_tlv("DF6D", b"\x00\x00") + encode_tlv("DF4D", VERSION)
        versions += encode_tlv("DF62", b"\x02" if self.legacy_select else b"\x03")
        entry = encode_tlv("4F", bytes.fromhex(SMART_TAP_AID)) + encode_tlv("87", b"\x01") + encode_tlv("73", versions)
        fci += encode_tlv("A5", encode_tlv("BF0C", encode_tlv("61", entry)))
        return encode_tlv("6F", fci) + SW_OK

    def select_smart_tap(self):
        """SELECT Smart Tap 2: minimum and maximum version, then the nonce in an mdn record."""
        self.selected = True
        self.counters["select_smart_tap"] += 1
        if self.session.device_nonce is None:
            self.session.device_nonce = os.urandom(32)
        mdn = record("mdn", bytes([FORMAT_BINARY]) + self.session.device_nonce, named_by_id=True)
        return b"\x00\x00" + VERSION + encode_ndef([mdn]) + SW_OK

    def negotiate(self, data):
        """NEGOTIATE SECURE CHANNEL: check the reader's signature, answer the session and dpk."""
        self.counters["negotiate"] += 1
        if self.session.device_nonce is None:
            return SW_CONDITIONS
        try:
            request = find(parse_ndef(data), "ngr").payload
            if request[:2] != VERSION:
                return SW_VERSION
            inner = parse_ndef(request[2:])
            ses = find(inner, "ses").payload
            cpr = find(inner, "cpr").payload
            if len(ses) < 10 or len(cpr) < 70:
                raise ValueError("ses or cpr too short")
            reader_nonce, auth, reader_key_bytes, key_version = cpr[:32], cpr[32], cpr[33:66], int.from_bytes(cpr[66:70], "big")
            params = parse_ndef(cpr[70:])
            signature = find(params, "sig").payload[1:]
            collector = collector_bytes(find(params, "cld").payload[1:])
            reader_key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), reader_key_bytes)
        except (ValueError, IndexError):
            return SW_PARSING_FAILURE
        collector_id = int.from_bytes(collector, "big")
        live = bool(auth & 0x01)
        signed = reader_nonce + (self.session.device_nonce if live else bytes(32)) + collector + reader_key_bytes
        known = self.collectors.get(collector_id)
        if known is not None:
            version, public_key = known
            try:
                if key_version != version:
                    raise InvalidSignature()
                public_key.verify(signature, signed, ec.ECDSA(hashes.SHA256()))
            except InvalidSignature:
                self.counters["auth_failed"] += 1
                return SW_AUTH_FAILED
        self.ensure_device_key()
        device_public = compressed_point(self.session.device_key.public_key())
        aes_key, mac_key = session_keys(self.session.device_key, reader_key, device_public, signed, signature)
        self.session.negotiated = {"session_id": ses[:8], "collector_id": collector_id, "aes_key": aes_key, "mac_key": mac_key,
                                   "key_version": key_version, "live_auth": live, "known": known is not None}
        reply = [record("ses", ses[:8] + bytes([(ses[8] + 1) & 0xFF, SESSION_OK])), record("dpk", self.device_key_bytes())]
        return encode_ndef([record("nrs", encode_ndef(reply))]) + SW_OK

    def get_data(self, data):
        """GET DATA: the passes of the negotiated collector, encrypted, maybe compressed, chained."""
        self.counters["get_data"] += 1
        session = self.session.negotiated
        if session is None:
            return SW_CONDITIONS
        try:
            request = find(parse_ndef(data), "srq").payload
            if request[:2] != VERSION:
                return SW_VERSION
            inner = parse_ndef(request[2:])
            ses = find(inner, "ses").payload
            merchant = collector_bytes(find(nested(inner, "mer"), "cld").payload[1:])
            services = [item.payload[0] for item in nested(inner, "slr") if item.type == b"str" and item.payload]
            pos = next((item.payload for item in inner if item.type == b"pcr"), b"")
            if len(ses) < 10 or (pos and len(pos) != 5):
                raise ValueError("ses or pcr has the wrong length")
        except (ValueError, IndexError):
            return SW_PARSING_FAILURE
        if ses[:8] != session["session_id"]:
            return SW_PARSING_FAILURE
        if int.from_bytes(merchant, "big") != session["collector_id"]:
            return SW_NO_MERCHANT
        zlib_offered = bool(pos) and bool(pos[0] & POS_ZLIB_SUPPORTED)
        self.last = {"collector_id": session["collector_id"], "key_version": session["key_version"], "live_auth": session["live_auth"],
                     "service_types": ["%02X" % kind for kind in services], "pos_capabilities": pos.hex().upper() or None,
                     "compressed": False, "bundle_bytes": 0, "response_bytes": 0, "chunks": 0, "objects": 0}
        if self.misbehave in STATUS_MODES:
            return STATUS_MODES[self.misbehave]
        if self.misbehave == "endless_9100":
            self.session.endless = True
            return bytes(self.chunk_bytes) + SW_MORE
        chosen = self.chosen_passes(session, services)
        if not chosen:
            self.counters["no_pass"] += 1
            return SW_NO_PASS
        values = [item.service_value() for item in chosen]
        if {SERVICE_ALL, SERVICE_ALL_EXCEPT_PPSE, SERVICE_CUSTOMER} & set(services):
            values.append(self.customer_value())
        bundle = encode_ndef(values)
        flags = BUNDLE_ENCRYPTED
        if self.misbehave == "oversized_inflation":
            bundle, flags = zlib.compress(bytes(INFLATION_BOMB_BYTES), 9), flags | BUNDLE_COMPRESSED
        elif zlib_offered and self.compression == "auto":
            bundle, flags = zlib.compress(bundle, 9), flags | BUNDLE_COMPRESSED
        if self.misbehave == "truncated_records":
            bundle = bundle[:-8]
        sealed = seal(bundle, session["aes_key"], session["mac_key"])
        if self.misbehave == "bad_mac":
            sealed = sealed[:-1] + bytes([sealed[-1] ^ 0x01])
        reply = [record("ses", ses[:8] + bytes([(ses[8] + 1) & 0xFF, SESSION_OK])), record("reb", bytes([flags]) + sealed)]
        response = encode_ndef([record("srs", encode_ndef(reply))])
        if self.misbehave == "wrong_lengths":
            response = self.lengthen_first_record(response, 64)
        self.counters["success"] += 1
        self.last.update(compressed=bool(flags & BUNDLE_COMPRESSED), bundle_bytes=len(bundle), response_bytes=len(response),
                         objects=len(chosen))
        return self.first_chunk(response)

    def chosen_passes(self, session, services):
        if not session["known"]:
            return []
        wanted = set(services)
        every = bool({SERVICE_ALL, SERVICE_ALL_EXCEPT_PPSE} & wanted)
        return [item for item in self.passes
                if item.collector_id == session["collector_id"] and (every or SERVICE_TYPES[item.kind] in wanted)]

    def customer_value(self):
        """asv {i (the wallet), cus {cid, cpl, cut}}: the customer id, language and a fresh tap id."""
        issuer = record("i", bytes([FORMAT_BINARY, ISSUER_WALLET]) + bytes(4))
        fields = [record("cid", bytes([FORMAT_BINARY]) + self.customer_id), text_record("cpl", self.language),
                  record("cut", bytes([FORMAT_BINARY]) + os.urandom(16))]
        return record("asv", encode_ndef([issuer, record("cus", encode_ndef(fields))]))

    @staticmethod
    def lengthen_first_record(message, extra):
        """The message with its first (short) record's payload length raised by `extra` (long form)."""
        header, type_length, length = message[0], message[1], message[2]
        return bytes([header & ~0x10, type_length]) + (length + extra).to_bytes(4, "big") + message[3:]

    def first_chunk(self, response):
        self.last["chunks"] = 1
        if len(response) <= self.chunk_bytes:
            return response + SW_OK
        self.session.pending = response[self.chunk_bytes :]
        return response[: self.chunk_bytes] + SW_MORE

    def get_more_data(self):
        self.counters["get_more_data"] += 1
        if self.session.endless:
            return bytes(self.chunk_bytes) + SW_MORE
        if not self.session.pending:
            return SW_NOTHING_MORE
        chunk, self.session.pending = self.session.pending[: self.chunk_bytes], self.session.pending[self.chunk_bytes :]
        if self.last is not None:
            self.last["chunks"] += 1
        return chunk + (SW_MORE if self.session.pending else SW_OK)

    # --- control commands ------------------------------------------------------------------

    def control_handlers(self):
        """The phone's line commands (Card.control runs them under the lock)."""
        return {
            "misbehave": self.set_misbehaviour,
            "legacy-select": self.set_legacy_select,
            "compression": self.set_compression,
            "chunk-bytes": self.set_chunk_bytes,
            "pass-value": self.set_pass_value,
            "apdus": self.tap_apdus,
        }

    def set_misbehaviour(self, mode):
        self.misbehave = self.checked_misbehaviour(mode)
        return {"ok": True, "misbehave": mode}

    def set_legacy_select(self, state):
        if state not in ("on", "off"):
            raise ValueError("legacy-select takes on or off, not %r" % state)
        self.legacy_select = state == "on"
        return {"ok": True, "legacy_select": self.legacy_select}

    def set_compression(self, value):
        self.compression = self.checked_compression(value)
        return {"ok": True, "compression": self.compression}

    def set_chunk_bytes(self, value):
        try:
            self.chunk_bytes = self.checked_chunk_bytes(int(value))
        except ValueError:
            raise ValueError("chunk-bytes takes a whole number from 16 to 255, not %r" % value) from None
        return {"ok": True, "chunk_bytes": self.chunk_bytes}

    def set_pass_value(self, object_id, value):
        wanted = bytes.fromhex(object_id)
        for item in self.passes:
            if item.object_id == wanted:
                item.set_value(value)
                return {"ok": True, "object_id": object_id.upper(), "value": value}
        raise ValueError("no pass with object id %s on this phone" % object_id)

    def tap_apdus(self):
        return {"ok": True, "apdus": list(self.received)}

    def status(self):
        with self.lock:
            return {"smarttap": dict(self.counters, last=self.last, busy_ns=self.busy_ns)}
