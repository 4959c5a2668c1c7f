#!/usr/bin/env python3
"""Writes the seed corpora of PassTap's fuzz targets into Fuzz/Corpus/TARGET/seed-NAME.

Run it again after changing a target's input format (Sources/PassTapFuzzTargets: a first byte
that picks a variant, then chunks of a length byte, or FF and a 2-byte length, and the bytes).
The cryptograms are sealed with Python's `cryptography` for the targets' fixed merchant key
(the SHA-256 of "PassTap fuzz merchant key"), through scripts/rig/virtual_iphone.py, apart from PassTap's code.
"""
import hashlib
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts", "rig"))

from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from virtual_iphone import encode_tlv as tlv, make_cryptogram  # noqa: E402

PASS_TYPE = "pass.com.example.fuzz"
MERCHANT = ec.derive_private_key(int.from_bytes(hashlib.sha256(b"PassTap fuzz merchant key").digest(), "big"), ec.SECP256R1())
EPHEMERAL = ec.derive_private_key(int("3C" * 32, 16), ec.SECP256R1())
TIMESTAMP = 800_000_000
OK = b"\x90\x00"


def chunk(data):
    if len(data) < 0xFF:
        return bytes([len(data)]) + data
    return b"\xff" + struct.pack(">H", len(data)) + data


def cryptogram(message, variant="A"):
    plaintext = struct.pack(">I", TIMESTAMP) + message
    return make_cryptogram(MERCHANT.public_key(), PASS_TYPE, plaintext, variant, EPHEMERAL)


def vas_select(label=b"ApplePay", version=b"\x01\x00", capabilities=b"\x00\x00\x00\x3e"):
    return tlv("6F", tlv("50", label) + tlv("9F21", version) + tlv("9F24", b"\xe9\xca\xed\xe3") + tlv("9F23", capabilities))


def vas_data(crypt):
    return tlv("70", tlv("9F2A", b"") + tlv("9F27", crypt))


MASTERCARD = bytes.fromhex("A0000000041010")
MASTERCARD_FCI = tlv("6F", tlv("84", MASTERCARD) + tlv("A5", tlv("50", b"MasterCard") + tlv("87", b"\x01")))
PPSE = tlv(
    "6F",
    tlv("84", b"2PAY.SYS.DDF01")
    + tlv(
        "A5",
        tlv(
            "BF0C",
            tlv("61", tlv("4F", MASTERCARD) + tlv("50", b"MasterCard") + tlv("87", b"\x01"))
            + tlv("61", tlv("4F", bytes.fromhex("A0000000031010")) + tlv("50", b"VISA") + tlv("87", b"\x02")),
        ),
    ),
)
# An FCI with card data in its issuer discretionary data: a PAN (5A), track 2 (57), a name (5F20).
CARD_DATA_FCI = tlv(
    "6F",
    tlv("84", MASTERCARD)
    + tlv(
        "A5",
        tlv("50", b"MasterCard")
        + tlv("BF0C", tlv("5A", bytes.fromhex("5413330089010434")) + tlv("57", bytes.fromhex("5413330089010434D2512201")) + tlv("5F20", b"DOE/JANE")),
    ),
)
NDEF_FCI = tlv("6F", tlv("84", bytes.fromhex("D2760000850101")))

# Smart Tap (the `smarttap` target, Sources/PassTapFuzzTargets/SmartTapFuzzing.swift).
def ndef(records):
    """An NDEF message of (tnf, type, payload, id) records: short records when the payload fits."""
    out = b""
    for index, (tnf, kind, payload, ident) in enumerate(records):
        header = tnf | (0x80 if index == 0 else 0) | (0x40 if index == len(records) - 1 else 0)
        short = len(payload) < 256
        header |= (0x10 if short else 0) | (0x08 if ident else 0)
        out += bytes([header, len(kind)]) + (bytes([len(payload)]) if short else struct.pack(">I", len(payload)))
        out += (bytes([len(ident)]) if ident else b"") + kind + ident + payload
    return out


def ext(kind, payload):
    return (4, kind, payload, b"")


ST_SESSION = bytes(range(1, 9))
ST_SECRET = hashlib.sha256(b"PassTap fuzz smart tap secret").digest()
ST_DEVICE_KEY = b"\x02" + b"\x5a" * 32
ST_INFO = b"PassTap fuzz smart tap info"
ST_PLAIN = ndef([ext(b"asv", ndef([
    ext(b"i", b"\x04" + bytes.fromhex("0000000bb8")),
    ext(b"ly", ndef([ext(b"oid", b"\x04" + bytes(range(1, 9))), (1, b"T", b"\x00member 0042", b"n")])),
    ext(b"cus", ndef([ext(b"cid", b"\x04" + bytes(16)), ext(b"cut", b"\x04" + bytes(range(16)))])),
]))])


def smarttap_bundle(body, flags=0x01, tamper=False):
    from cryptography.hazmat.primitives import hashes, hmac as chmac
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF
    okm = HKDF(algorithm=hashes.SHA256(), length=48, salt=ST_DEVICE_KEY, info=ST_INFO).derive(ST_SECRET)
    iv = bytes(range(0xA0, 0xAC))
    encryptor = Cipher(algorithms.AES(okm[:16]), modes.CTR(iv + bytes(4))).encryptor()
    ciphertext = encryptor.update(body) + encryptor.finalize()
    mac = chmac.HMAC(okm[16:], hashes.SHA256())
    mac.update(iv + ciphertext)
    if tamper:
        ciphertext = bytes([ciphertext[0] ^ 1]) + ciphertext[1:]
    return bytes([flags]) + iv + ciphertext + mac.finalize()


def smarttap_get_data(bundle, session=ST_SESSION):
    return ndef([ext(b"srs", ndef([ext(b"ses", session + b"\x02\x01"), ext(b"reb", bundle)]))])


ST_READER_SESSION = b"\x42" * 8
ST_NONCE = b"\x5a" * 32
ST_PHONE_KEY = bytes.fromhex("03dfee38dbdb68a607383ad622640b180cc7e27d796b4e788c40e5d994291c71fc")


def ose_android(material=True):
    fields = tlv("50", b"AndroidPay") + tlv("C0", b"\x00\x01")
    if material:
        fields += tlv("C2", ST_NONCE) + tlv("C3", ST_PHONE_KEY)
    return tlv("6F", fields)


ST_NEGOTIATED = ndef([ext(b"nrs", ndef([ext(b"ses", ST_READER_SESSION + b"\x01\x01"), ext(b"dpk", ST_PHONE_KEY)]))])
ST_APPLET = b"\x00\x00\x00\x01" + ndef([(4, b"mdn", b"\x04" + ST_NONCE, b"mdn")])
ST_READ_DATA = smarttap_get_data(smarttap_bundle(ST_PLAIN), ST_READER_SESSION)


READER = "pcsc:Fuzz Reader 00 00"


def rpc_lines(*lines):
    return "\n".join(lines).encode()


SEEDS = {
    "tlv": {
        "primitive": tlv("5A", bytes.fromhex("5413330089010434")),
        "mastercard-fci": MASTERCARD_FCI,
        "ppse": PPSE,
        "card-data-fci": CARD_DATA_FCI,
        "vas-select": vas_select(),
        "vas-data": vas_data(cryptogram(b"member 0042")),
        "long-form": bytes.fromhex("7081059F2A0200FF") + bytes.fromhex("DF7F820003414243"),
        "padding": bytes.fromhex("00FF5001410000"),
        "four-byte-tag": bytes.fromhex("5FFF8101024142"),
        "nested": bytes.fromhex("E10CE20AE308E406E504E6025000"),
    },
    "vas-select": {
        "correct": chunk(vas_select() + OK),
        "samsung": chunk(vas_select(label=b"SamsungWallet") + OK),
        "version-0200": chunk(vas_select(version=b"\x02\x00") + OK),
        "capabilities-short": chunk(vas_select(capabilities=b"\x00\x3e") + OK),
        "chained": chunk(b"\x61\x1f") + chunk(vas_select() + OK),
        "wrong-le": chunk(b"\x6c\x1f") + chunk(vas_select() + OK),
        "no-applet": chunk(b"\x6a\x82"),
        "empty": chunk(b""),
        "long-label": chunk(vas_select(label=b"\x1b]0;x\x07" * 60) + OK),
    },
    "vas-data": {
        "correct": b"\x00" + chunk(vas_data(cryptogram(b"member 0042")) + OK),
        "variant-b": b"\x00" + chunk(vas_data(cryptogram(b"member 0042", "B")) + OK),
        "needs-auth": b"\x00" + chunk(b"\x62\x87"),
        "chained": b"\x00" + chunk(b"\x61\x20") + chunk(vas_data(cryptogram(b"member 0042"))[:0x20] + b"\x61\x40") + chunk(vas_data(cryptogram(b"member 0042"))[0x20:] + OK),
        "truncated": b"\x00" + chunk(vas_data(cryptogram(b"member 0042"))[:-16] + OK),
        "missing-9f27": b"\x00" + chunk(tlv("70", tlv("9F2A", b"")) + OK),
        "sealed-message": b"\x01" + chunk(b"member 0042"),
        "sealed-message-b": b"\x81" + chunk(b"\xff\x00member\xc3"),
        "sealed-empty": b"\x01" + chunk(b""),
        "cryptogram-body": b"\x02" + chunk(cryptogram(b"member 0042")[4:]),
        "cryptogram-short": b"\x02" + chunk(bytes(20)),
    },
    "fci": {
        "mastercard": b"\x00" + chunk(MASTERCARD_FCI + OK),
        "card-data": b"\x00" + chunk(CARD_DATA_FCI + OK),
        "chained": b"\x00" + chunk(b"\x61\x20") + chunk(MASTERCARD_FCI + OK),
        "ppse": b"\x01" + chunk(PPSE + OK),
        "ndef": b"\x02" + chunk(NDEF_FCI + OK),
        "ndef-card-data": b"\x02" + chunk(CARD_DATA_FCI + OK),
        "not-tlv": b"\x02" + chunk(b"\x6f\x10\x84" + OK),
    },
    "rpc": {
        "status": b"\x07" + rpc_lines('{"jsonrpc":"2.0","id":1,"method":"status"}'),
        "every-method": b"\x07"
        + rpc_lines(
            '{"jsonrpc":"2.0","id":1,"method":"status"}',
            '{"jsonrpc":"2.0","id":"two","method":"readers.list"}',
            '{"jsonrpc":"2.0","id":3,"method":"events.subscribe","params":{"since":1,"kinds":["card.inserted","read.result"]}}',
            '{"jsonrpc":"2.0","id":4,"method":"card.transmit","params":{"reader":"%s","apdu":"00a4040007a000000003101000"}}' % READER,
            '{"jsonrpc":"2.0","id":5,"method":"vas.read","params":{"reader":"%s","merchants":["%s"],"timeout_ms":20000}}' % (READER, PASS_TYPE),
        ),
        "observer": b"\x01"
        + rpc_lines(
            '{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"%s"}}' % READER,
            '{"jsonrpc":"2.0","id":2,"method":"card.transmit","params":{"reader":"%s","apdu":"00","raw":true}}' % READER,
        ),
        "subscribed": b"\x0f" + rpc_lines('{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}'),
        "garbage": b"\x07"
        + rpc_lines(
            '{"jsonrpc":"2.0","id":1,"method":"status",}',
            "null",
            "[]",
            '{"jsonrpc":"1.0","id":1,"method":"status"}',
            '{"jsonrpc":"2.0","id":1,"method":"no.such"}',
            '{"jsonrpc":"2.0","id":1e999,"method":"status"}',
            "[" * 64,
            '{"jsonrpc":"2.0","method":"status"}',
            '{"jsonrpc":"2.0","id":{"a":1},"method":"status"}',
            '\ufeff{"jsonrpc":"2.0","id":1,"method":"status"}',
        ),
    },
    "smarttap": {
        "bundle": b"\x01" + smarttap_get_data(smarttap_bundle(ST_PLAIN)),
        "bundle-compressed": b"\x01" + smarttap_get_data(smarttap_bundle(zlib.compress(ST_PLAIN), 0x03)),
        "bundle-bad-mac": b"\x01" + smarttap_get_data(smarttap_bundle(ST_PLAIN, tamper=True)),
        "bundle-bomb": b"\x01" + smarttap_get_data(smarttap_bundle(zlib.compress(bytes(200000), 9), 0x03)),
        "bundle-other-session": b"\x01" + smarttap_get_data(smarttap_bundle(ST_PLAIN), bytes(8)),
        "bundle-short": b"\x01" + smarttap_get_data(b"\x01" + bytes(20)),
        "read-no-pass": b"\x00" + chunk(ose_android()) + chunk(ST_NEGOTIATED + OK) + chunk(b"\x90\x01"),
        "read-choose": b"\x40" + chunk(ose_android()) + chunk(ST_NEGOTIATED + OK) + chunk(b"\x93\x02"),
        "read-refused": b"\x80" + chunk(ose_android()) + chunk(ST_NEGOTIATED + OK) + chunk(b"\x94\x06"),
        "read-more-data": b"\x00" + chunk(ose_android()) + chunk(ST_NEGOTIATED + OK)
        + chunk(ST_READ_DATA[:40] + b"\x91\x00") + chunk(ST_READ_DATA[40:80] + b"\x91\x00") + chunk(ST_READ_DATA[80:] + OK),
        "read-older-phone": b"\x00" + chunk(ose_android(False)) + chunk(ST_APPLET + OK) + chunk(ST_NEGOTIATED + OK) + chunk(ST_READ_DATA + OK),
        "read-apple": b"\x00" + chunk(vas_select()),
    },
    "config": {
        "shipped": open(os.path.join(ROOT, "Config", "passtapd.toml"), "rb").read(),
        "vas": b"""[vas]
enabled = true
freshness_s = 30

[[vas.merchants]]
pass_type_id = "pass.com.example.fuzz"
keys = ["merchant.hex"]
url = "https://example.com/join"
filter = "0100000000"
""",
        "access": b"""[socket]
path = "/run/passtap/passtapd.sock"
mode = "0660"
max_clients_per_uid = 4
idle_timeout_ms = 5000

[access]
observe = ["*"]
read = ["uid:0", "group:root"]
transmit = ["user:root"]
""",
        "readers": b"""[session]
aids = ["A0000000041010", "D2760000850101"]
ppse = true
budget_ms = 1500

[[reader]]
match = "ACS ACR122U*"
aids = ["A0000000031010"]

[libnfc]
enabled = true
devices = ["pn532_uart:/dev/ttyUSB0"]
ecp = "always"
""",
        "bad-line": b"[socket]\nmax_clients = \"many\"\n",
    },
}


def main():
    for target, seeds in SEEDS.items():
        folder = os.path.join(HERE, "Corpus", target)
        os.makedirs(folder, exist_ok=True)
        for stale in os.listdir(folder):
            if stale.startswith("seed-") and stale[len("seed-"):] not in seeds:
                os.remove(os.path.join(folder, stale))
        for name, data in seeds.items():
            with open(os.path.join(folder, "seed-" + name), "wb") as f:
                f.write(data)
    print("wrote %d seeds" % sum(len(s) for s in SEEDS.values()))


if __name__ == "__main__":
    main()
