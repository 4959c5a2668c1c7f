"""Tests of the virtual Android phone, in process: `Phone.answer(apdu)` directly, no pcscd, no sockets.

Run from the repository root: python3 -m unittest scripts/rig/test_virtual_android.py

The reader here (`TestReader`: its NDEF, signature, key derivation, HMAC check and decryption) is
written separately from the phone's code, from the same public sources. The phone's NDEF is first
checked against bytes published by others, so it is not judged only by a reader of our own:
- kormax/google-smart-tap README.md (commit 7402b9d, no licence file: facts quoted as data): the
  NEGOTIATE SECURE CHANNEL request and response, the SELECT Smart Tap 2 answer, the GET DATA
  request and response, the SELECT OSE.VAS.01 answer.
- RfidResearchGroup/proxmark3 client/src/cmdhfgst.c (commit 34a3ae0, GPL-3.0; the data only, no
  code): `gst_selftest_zlib`'s compressed record bundle of Google's demo pass, which inflates to
  1312 bytes: asv {i, ly {oid 04 21C94A5101E25EAA, n}} then asv {i, cus {cid 04 + 16 zeros, cpl, cut}}.
No public source gives an end-to-end decryption vector (the phones' ephemeral keys are not
published), so the encryption is checked by TestReader's independent decryption.
"""

import hashlib
import hmac
import json
import os
import sys
import tempfile
import unittest
import zlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import virtual_card  # noqa: E402
import virtual_android  # noqa: E402
from virtual_android import Phone  # noqa: E402
from virtual_iphone import parse_tlv  # noqa: E402

SELECT_OSE = bytes.fromhex("00A404000A4F53452E5641532E303100")
SELECT_SMART_TAP = bytes.fromhex("00A4040009A000000476D000011100")
COLLECTOR = 20180608
OTHER_COLLECTOR = 12345678

# kormax/google-smart-tap README.md, "NEGOTIATE SECURE CHANNEL" and "GET DATA".
KORMAX_NEGOTIATE_REQUEST = bytes.fromhex(
    "d403b86e6772000194030a7365736b159a80fc8283fd00015403a0637072a8aa2bae1ba891783d8c5be8a95bf2f9e5bb90fd9d197f8b2b1a84d9cc8042"
    "7501027b2e12f1a1a542084b4d01b8799380fa4cb77e530ba2305b0bf2b3e4b474fe7d0000000194034973696704304602210086e43dc483b22e51aa17"
    "7ae8112ed83d399a58b41d6d8cbe900cde03c4524da5022100e94b6a919c9e097568f4efa9a7123b86b97ee44342593f8a77fc9e12e3f95ae454030563"
    "6c640401020304"
)
KORMAX_NEGOTIATE_RESPONSE = bytes.fromhex(
    "d403376e727394030a7365736b159a80fc8283fd010154032164706b03dfee38dbdb68a607383ad622640b180cc7e27d796b4e788c40e5d994291c71fc"
)
KORMAX_SELECT_SMART_TAP = bytes.fromhex(
    "00000001dc0321036d646e6d646e0456d2ec8f857f0049aa54f1ca1de2791b5693a7014e6e4565d5644b1c2a305136"
)
KORMAX_GET_DATA_REQUEST = bytes.fromhex(
    "d4033b737271000194030a7365736b159a80fc8283fd010114030b6d6572d40305636c640401020304140307736c72d40301737472005403057063724100000004"
)
KORMAX_GET_DATA_RESPONSE = bytes.fromhex(
    "d403ce73727394030a7365736b159a80fc8283fd02015403b8726562031c5b7d2e9f0f6937a7c043dc6913dd976002ce5cf179dedbcaaab629442a89a7"
    "2b6a92caa26e808903a6d02207fd2d42702161d21c76f0a2a135bd8d45ac796786787e268bcc7498d17eccab47ad98be601a3470618fcd9790b40e3c32"
    "4fc01ec29a98d1cb784fd4390ea1b045437cfdfa121447854c5ae5375c3f721a7a9f80b7da35868e063f18c545f07d934e4cc557fc93ee52b6231c95ef"
    "2d2d1de6be82be0d76e8d555dc41cc4894e44af98c68e4245e5bb6cecc"
)
KORMAX_SELECT_OSE = bytes.fromhex(
    "6f8184500a416e64726f6964506179c0020001c108cc00000000008080c22056d2ec8f857f0049aa54f1ca1de2791b5693a7014e6e4565d5644b1c2a3051"
    "36c32103dfee38dbdb68a607383ad622640b180cc7e27d796b4e788c40e5d994291c71fca523bf0c20611e4f09a000000476d0000111870101730edf6d02"
    "0000df4d020001df620103"
)
# proxmark3 client/src/cmdhfgst.c, gst_selftest_zlib (Google's demo pass).
PROXMARK_BUNDLE = bytes.fromhex(
    "78DA5DD4BD4A03411885E1DDEC22586A6799D40AF97EA2C6DA2676E256824A480246821A930841EC2C2D2C828DE00588B5D7A07721DE87E0A2CCD939"
    "4EB5F3EE340FF373972549FEDE9D5C2FD2A5619E26E5D8AD95E96D345F64CB17C37E5EFFD8DB4FBF8E5F3AE5CFFC392DCE939B46BF3BED6E341B3BBF"
    "1F27A783AB41B3B1FE5725AE12AAC65543B5B85AA81E570FB515D756A89B71DD0C752BAE5BA16EC7753BD4765CDB50104E2A1DF3E013020A84424481"
    "510829500A31054E21A8402A44155885B002AD1057E055F22ABC4A5EADF69337145E25AFC2ABE4557895BC0AAF9257E155F22ABC4A5E8557C9ABF01A"
    "790D5E23AFC16BE4B5EA04F31186D7C86BF01A790D5E23AFC16BE435788DBC06AF91D7E075F23ABC4E5E87D7C9EBF03A79BDBAB37C69E175F23ABC4E"
    "5E87D7C9EBF03A791D5E276F39BB2DB24E78CD6AE3F97C5C64EDDE6CB2C8567AE55B96FC1B6B699615BDCB5132382FCA15B3697E7F74F8507F3C58FD"
    "1E7C8EC6674FAF3FF76A8230"
)
PROXMARK_OBJECT_ID = bytes.fromhex("0421C94A5101E25EAA")


# --- the test reader's own NDEF ------------------------------------------------------------------

def ndef(*records):
    """An NDEF message of (tnf, type, payload) or (tnf, type, id, payload) tuples."""
    out = b""
    for index, item in enumerate(records):
        tnf, kind, ident, payload = item if len(item) == 4 else (item[0], item[1], b"", item[2])
        flags = (0x80 if index == 0 else 0) | (0x40 if index == len(records) - 1 else 0) | (0x08 if ident else 0)
        if len(payload) < 256:
            head = bytes([flags | 0x10 | tnf, len(kind), len(payload)])
        else:
            head = bytes([flags | tnf, len(kind)]) + len(payload).to_bytes(4, "big")
        out += head + (bytes([len(ident)]) if ident else b"") + kind + ident + payload
    return out


def ext(kind, payload):
    return (4, kind.encode(), payload)


def records(data):
    """[(tnf, type, id, payload)] of an NDEF message; AssertionError if it does not add up."""
    found, at = [], 0
    while at < len(data):
        flags, type_length = data[at], data[at + 1]
        at += 2
        if flags & 0x10:
            length, at = data[at], at + 1
        else:
            length, at = int.from_bytes(data[at : at + 4], "big"), at + 4
        id_length = 0
        if flags & 0x08:
            id_length, at = data[at], at + 1
        kind, at = data[at : at + type_length], at + type_length
        ident, at = data[at : at + id_length], at + id_length
        payload, at = data[at : at + length], at + length
        assert len(payload) == length, "record claims %d bytes, %d there" % (length, len(payload))
        found.append((flags & 7, kind, ident, payload))
        if flags & 0x40:
            break
    assert at == len(data), "%d bytes after the last record" % (len(data) - at)
    return found


def named(found, name):
    name = name.encode()
    return next(item[3] for item in found if item[1] == name or item[2] == name)


def shape(data, containers=(b"asv", b"ly", b"of", b"gc", b"gr", b"cus")):
    """The tnf, type and id of every record, nested ones inside their container."""
    return [(tnf, kind, ident, shape(payload) if kind in containers else None) for tnf, kind, ident, payload in records(data)]


class TestReader:
    """A Smart Tap 2.1 reader for the tests, apart from the phone's code."""

    def __init__(self, phone, key, collector_id=COLLECTOR, key_version=1, live=True):
        self.phone, self.key, self.collector_id, self.key_version, self.live = phone, key, collector_id, key_version, live
        self.session_id = os.urandom(8)

    def send(self, apdu):
        answer = self.phone.answer(apdu)
        return answer[:-2], answer[-2:].hex().upper()

    def command(self, ins, data):
        return bytes([0x90, ins, 0x00, 0x00, len(data)]) + data + b"\x00"

    def select(self, legacy=False):
        self.phone.begin_tap()
        data, sw = self.send(SELECT_OSE)
        assert sw == "9000", sw
        self.ose = parse_tlv(parse_tlv(data)["6F"])
        self.device_nonce = self.ose.get("C2")
        if legacy:
            data, sw = self.send(SELECT_SMART_TAP)
            assert sw == "9000" and data[:4] == bytes.fromhex("00000001"), (data.hex(), sw)
            self.device_nonce = named(records(data[4:]), "mdn")[1:]
        return self.ose

    def negotiate(self, signing_key=None, nonce=None):
        self.reader_key = ec.generate_private_key(ec.SECP256R1())
        reader_public = self.reader_key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.CompressedPoint)
        self.reader_nonce = os.urandom(32)
        collector = self.collector_id.to_bytes(4, "big")
        device_nonce = (nonce or self.device_nonce) if self.live else bytes(32)
        self.signed = self.reader_nonce + device_nonce + collector + reader_public
        self.signature = (signing_key or self.key).sign(self.signed, ec.ECDSA(hashes.SHA256()))
        params = ndef(ext("sig", b"\x04" + self.signature), ext("cld", b"\x04" + collector))
        cpr = self.reader_nonce + bytes([1 if self.live else 0]) + reader_public + self.key_version.to_bytes(4, "big") + params
        request = ndef(ext("ngr", b"\x00\x01" + ndef(ext("ses", self.session_id + b"\x01\x01"), ext("cpr", cpr))))
        data, sw = self.send(self.command(0x53, request))
        if sw == "9000":
            inner = records(named(records(data), "nrs"))
            self.nrs_session = named(inner, "ses")
            self.device_key_bytes = named(inner, "dpk")
        return sw

    def get_data(self, services=(0x00,), pos=bytes.fromhex("4000000001"), collector_id=None, session_id=None, max_rounds=20):
        """The GET DATA answer and its GET MORE DATA continuations joined; the last status word and
        the number of APDUs."""
        merchant = ndef(ext("cld", b"\x04" + (collector_id or self.collector_id).to_bytes(4, "big")))
        service_list = ndef(*[ext("str", bytes([kind])) for kind in services])
        parts = [ext("ses", (session_id or self.session_id) + b"\x02\x01"), ext("mer", merchant), ext("slr", service_list)]
        if pos is not None:
            parts.append(ext("pcr", pos))
        data, sw = self.send(self.command(0x50, ndef(ext("srq", b"\x00\x01" + ndef(*parts)))))
        rounds = 1
        while sw == "9100" and rounds < max_rounds:
            more, sw = self.send(bytes.fromhex("90C0000000"))
            data += more
            rounds += 1
        return data, sw, rounds

    def keys(self):
        device_public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), self.device_key_bytes)
        shared = self.reader_key.exchange(ec.ECDH(), device_public)
        material = HKDF(hashes.SHA256(), 48, salt=self.device_key_bytes, info=self.signed + self.signature).derive(shared)
        return material[:16], material[16:]

    def open_bundle(self, response):
        """(flags, plaintext) of a GET DATA response; ValueError for a bad HMAC."""
        service = records(named(records(response), "srs"))
        bundle = named(service, "reb")
        flags, iv, ciphertext, mac = bundle[0], bundle[1:13], bundle[13:-32], bundle[-32:]
        aes_key, mac_key = self.keys()
        if not hmac.compare_digest(hmac.new(mac_key, iv + ciphertext, hashlib.sha256).digest(), mac):
            raise ValueError("bad HMAC")
        decryptor = Cipher(algorithms.AES(aes_key), modes.CTR(iv + b"\x00\x00\x00\x00")).decryptor()
        plaintext = decryptor.update(ciphertext) + decryptor.finalize()
        return flags, zlib.decompress(plaintext) if flags & 0x02 else plaintext

    def read(self, **arguments):
        self.select()
        assert self.negotiate() == "9000"
        data, sw, _ = self.get_data(**arguments)
        assert sw == "9000", sw
        return self.open_bundle(data)


def objects(bundle):
    """[(kind, object id, value)] and the customer id of a decrypted bundle."""
    found, customer = [], None
    for _, kind, _, payload in records(bundle):
        assert kind == b"asv"
        for _, inner_kind, _, inner in records(payload):
            if inner_kind == b"cus":
                customer = named(records(inner), "cid")[1:].hex().upper()
            elif inner_kind in (b"ly", b"of", b"gc", b"gr"):
                fields = records(inner)
                found.append((inner_kind.decode(), named(fields, "oid")[1:].hex().upper(), named(fields, "n")[1:].decode()))
    return found, customer


class PublishedBytesTests(unittest.TestCase):
    def test_the_phone_reads_kormax_negotiate_request(self):
        request = virtual_android.find(virtual_android.parse_ndef(KORMAX_NEGOTIATE_REQUEST), "ngr").payload
        self.assertEqual(request[:2], b"\x00\x01")
        inner = virtual_android.parse_ndef(request[2:])
        self.assertEqual(virtual_android.find(inner, "ses").payload.hex(), "6b159a80fc8283fd0001")
        cpr = virtual_android.find(inner, "cpr").payload
        self.assertEqual(cpr[:32].hex(), "a8aa2bae1ba891783d8c5be8a95bf2f9e5bb90fd9d197f8b2b1a84d9cc804275")
        self.assertEqual(cpr[32], 0x01)
        self.assertEqual(cpr[33:66].hex(), "027b2e12f1a1a542084b4d01b8799380fa4cb77e530ba2305b0bf2b3e4b474fe7d")
        self.assertEqual(cpr[66:70].hex(), "00000001")
        params = virtual_android.parse_ndef(cpr[70:])
        self.assertTrue(virtual_android.find(params, "sig").payload.startswith(bytes.fromhex("04304602210086e43d")))
        self.assertEqual(virtual_android.collector_bytes(virtual_android.find(params, "cld").payload[1:]).hex(), "01020304")

    def test_the_phone_writes_kormax_negotiate_response_byte_for_byte(self):
        ses = virtual_android.record("ses", bytes.fromhex("6b159a80fc8283fd0101"))
        dpk = virtual_android.record("dpk", bytes.fromhex("03dfee38dbdb68a607383ad622640b180cc7e27d796b4e788c40e5d994291c71fc"))
        message = virtual_android.encode_ndef([virtual_android.record("nrs", virtual_android.encode_ndef([ses, dpk]))])
        self.assertEqual(message, KORMAX_NEGOTIATE_RESPONSE)

    def test_the_phone_writes_kormax_select_smart_tap_answer_byte_for_byte(self):
        phone = Phone({"collectors": [], "passes": []})
        phone.begin_tap()
        phone.session.device_nonce = bytes.fromhex("56d2ec8f857f0049aa54f1ca1de2791b5693a7014e6e4565d5644b1c2a305136")
        self.assertEqual(phone.answer(SELECT_SMART_TAP), KORMAX_SELECT_SMART_TAP + b"\x90\x00")

    def test_the_phone_reads_kormax_get_data_request(self):
        inner = virtual_android.parse_ndef(virtual_android.find(virtual_android.parse_ndef(KORMAX_GET_DATA_REQUEST), "srq").payload[2:])
        self.assertEqual(virtual_android.find(virtual_android.nested(inner, "mer"), "cld").payload.hex(), "0401020304")
        self.assertEqual([item.payload for item in virtual_android.nested(inner, "slr")], [b"\x00"])
        self.assertEqual(virtual_android.find(inner, "pcr").payload.hex(), "4100000004")

    def test_the_phone_writes_kormax_get_data_response_byte_for_byte(self):
        bundle = named(records(named(records(KORMAX_GET_DATA_RESPONSE), "srs")), "reb")
        ses = virtual_android.record("ses", bytes.fromhex("6b159a80fc8283fd0201"))
        srs = virtual_android.encode_ndef([ses, virtual_android.record("reb", bundle)])
        self.assertEqual(virtual_android.encode_ndef([virtual_android.record("srs", srs)]), KORMAX_GET_DATA_RESPONSE)
        self.assertEqual(bundle[0], 0x03, "kormax's bundle is encrypted and compressed (its pcr offered zlib)")

    def test_the_select_ose_answer_has_kormax_shape(self):
        phone = Phone({"collectors": [], "passes": []})
        phone.begin_tap()
        answer = phone.answer(SELECT_OSE)
        self.assertEqual(answer[-2:], b"\x90\x00")
        ours, theirs = parse_tlv(parse_tlv(answer[:-2])["6F"]), parse_tlv(parse_tlv(KORMAX_SELECT_OSE)["6F"])
        self.assertEqual(list(ours), list(theirs))
        for tag in ("50", "C0", "C1", "A5"):
            self.assertEqual(ours[tag], theirs[tag], tag)
        self.assertEqual((len(ours["C2"]), len(ours["C3"])), (32, 33))
        self.assertIn(ours["C3"][0], (2, 3))

    def test_the_proxmark_bundle_inflates_to_the_shape_the_phone_writes(self):
        bundle = zlib.decompress(PROXMARK_BUNDLE)
        self.assertEqual(len(bundle), 1312)
        found, customer = objects(bundle)
        self.assertEqual([(kind, object_id) for kind, object_id, _ in found], [("ly", PROXMARK_OBJECT_ID[1:].hex().upper())])
        self.assertEqual(customer, "00" * 16)
        # The phone's own bundle, for one loyalty pass, has the published records in the same places.
        phone = Phone({"collectors": [], "passes": [{"collector_id": COLLECTOR, "value": "x"}]})
        ours = virtual_android.encode_ndef([phone.passes[0].service_value(), phone.customer_value()])
        self.assertEqual(shape(ours), shape(bundle))
        published_issuer = named(records(records(bundle)[0][3]), "i")
        our_issuer = named(records(records(ours)[0][3]), "i")
        self.assertEqual((len(our_issuer), our_issuer[:2]), (len(published_issuer), published_issuer[:2]))


class PhoneTestCase(unittest.TestCase):
    """A phone file in a temporary folder, with the collector's key and another one."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.stranger = ec.generate_private_key(ec.SECP256R1())
        with open(os.path.join(self.folder.name, "collector.pem"), "wb") as handle:
            handle.write(self.key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        self.config = {
            "wallet": "AndroidPay",
            "collectors": [{"collector_id": COLLECTOR, "key_version": 1, "key": "collector.pem"}],
            "passes": [
                {"collector_id": COLLECTOR, "type": "loyalty", "object_id": "00000000000000A1", "value": "member 0042"},
                {"collector_id": COLLECTOR, "type": "offer", "object_id": "00000000000000B2", "value": "10% off"},
                {"collector_id": OTHER_COLLECTOR, "type": "loyalty", "object_id": "00000000000000C3", "value": "elsewhere"},
            ],
        }

    def make_phone(self, **overrides):
        path = os.path.join(self.folder.name, "phone.json")
        with open(path, "w") as handle:
            json.dump(dict(self.config, **overrides), handle)
        return virtual_card.load_phone(path, None)

    def reader(self, phone=None, **arguments):
        return TestReader(phone or self.make_phone(), self.key, **arguments)


class ReadTests(PhoneTestCase):
    def test_a_read_gives_every_pass_of_the_collector_and_the_customer(self):
        reader = self.reader()
        flags, bundle = reader.read()
        found, customer = objects(bundle)
        self.assertEqual(found, [("ly", "00000000000000A1", "member 0042"), ("of", "00000000000000B2", "10% off")])
        self.assertEqual(customer, "00112233445566778899AABBCCDDEEFF")
        self.assertEqual(flags, 0x03, "encrypted and compressed: the reader offered zlib")
        self.assertEqual(reader.nrs_session, reader.session_id + b"\x02\x01")

    def test_without_zlib_offered_or_with_compression_never_the_bundle_is_not_compressed(self):
        self.assertEqual(self.reader().read(pos=bytes.fromhex("0000000001"))[0], 0x01)
        self.assertEqual(self.reader().read(pos=None)[0], 0x01)
        self.assertEqual(self.reader(self.make_phone(compression="never")).read()[0], 0x01)

    def test_service_types_choose_the_objects_and_the_customer(self):
        found, customer = objects(self.reader().read(services=(0x04,))[1])
        self.assertEqual((found, customer), ([("of", "00000000000000B2", "10% off")], None))
        found, customer = objects(self.reader().read(services=(0x03, 0x40))[1])
        self.assertEqual([item[0] for item in found], ["ly"])
        self.assertIsNotNone(customer)

    def test_every_tap_has_fresh_keys_and_a_fresh_tap_id(self):
        phone = self.make_phone()
        first, second = TestReader(phone, self.key), TestReader(phone, self.key)
        taps = [reader.read()[1] for reader in (first, second)]
        self.assertNotEqual(first.device_key_bytes, second.device_key_bytes)
        self.assertNotEqual(first.device_nonce, second.device_nonce)
        tap_ids = [named(records(named(records(records(bundle)[-1][3]), "cus")), "cut") for bundle in taps]
        self.assertNotEqual(tap_ids[0], tap_ids[1])

    def test_the_2_1_answer_carries_nonce_and_key_and_they_are_the_negotiated_ones(self):
        reader = self.reader()
        ose = reader.select()
        self.assertEqual(reader.negotiate(), "9000")
        self.assertEqual(ose["C3"], reader.device_key_bytes)
        data, sw = reader.send(SELECT_SMART_TAP)
        self.assertEqual(named(records(data[4:]), "mdn")[1:], ose["C2"], "the same nonce, as in kormax's example")

    def test_an_older_phone_needs_select_smart_tap(self):
        reader = self.reader(self.make_phone(legacy_select=True))
        ose = reader.select(legacy=True)
        self.assertNotIn("C2", ose)
        self.assertNotIn("C3", ose)
        self.assertIn(bytes.fromhex("DF620102"), ose["A5"])
        self.assertEqual(reader.negotiate(), "9000")
        data, sw, _ = reader.get_data()
        self.assertEqual(sw, "9000")
        self.assertEqual(len(objects(reader.open_bundle(data)[1])[0]), 2)

    def test_without_live_authentication_the_signature_covers_zeros(self):
        reader = self.reader(live=False)
        self.assertEqual(len(objects(reader.read()[1])[0]), 2)
        stats = reader.phone.status()["smarttap"]["last"]
        self.assertFalse(stats["live_auth"])

    def test_chaining_delivers_a_long_answer_in_pieces(self):
        passes = [{"collector_id": COLLECTOR, "type": "generic", "object_id": "%016X" % index, "value": "v" * 200} for index in range(4)]
        reader = self.reader(self.make_phone(passes=passes, chunk_bytes=100))
        reader.select()
        reader.negotiate()
        data, sw, rounds = reader.get_data(pos=bytes.fromhex("0000000001"))
        self.assertEqual(sw, "9000")
        self.assertGreater(rounds, 8)
        self.assertEqual([item[2] for item in objects(reader.open_bundle(data)[1])[0]], ["v" * 200] * 4)
        self.assertEqual(reader.phone.status()["smarttap"]["last"]["chunks"], rounds)
        self.assertEqual(reader.send(bytes.fromhex("90C0000000")), (b"", "9404"))

    def test_the_pos_capabilities_and_request_are_recorded(self):
        reader = self.reader()
        reader.read(services=(0x03,), pos=bytes.fromhex("4000000008"))
        last = reader.phone.status()["smarttap"]["last"]
        self.assertEqual((last["pos_capabilities"], last["service_types"], last["collector_id"]), ("4000000008", ["03"], COLLECTOR))


class RefusalTests(PhoneTestCase):
    def test_a_signature_by_another_key_is_9500(self):
        reader = self.reader()
        reader.select()
        self.assertEqual(reader.negotiate(signing_key=self.stranger), "9500")
        self.assertEqual(reader.phone.status()["smarttap"]["auth_failed"], 1)
        self.assertEqual(reader.get_data()[1], "6985")

    def test_a_signature_over_another_nonce_is_9500(self):
        reader = self.reader()
        reader.select()
        self.assertEqual(reader.negotiate(nonce=os.urandom(32)), "9500")

    def test_another_key_version_is_9500(self):
        reader = self.reader(key_version=2)
        reader.select()
        self.assertEqual(reader.negotiate(), "9500")

    def test_an_unknown_collector_gets_no_pass(self):
        reader = self.reader(collector_id=OTHER_COLLECTOR + 1)
        reader.select()
        self.assertEqual(reader.negotiate(), "9000")
        self.assertEqual(reader.get_data()[:2], (b"", "9001"))

    def test_a_phone_without_passes_of_the_collector_answers_9001(self):
        reader = self.reader(self.make_phone(passes=[]))
        reader.select()
        reader.negotiate()
        self.assertEqual(reader.get_data()[:2], (b"", "9001"))

    def test_session_and_merchant_must_match_the_negotiation(self):
        reader = self.reader()
        reader.select()
        reader.negotiate()
        self.assertEqual(reader.get_data(session_id=os.urandom(8))[1], "9402")
        self.assertEqual(reader.get_data(collector_id=OTHER_COLLECTOR)[1], "9407")

    def test_malformed_commands(self):
        reader = self.reader()
        reader.select()
        self.assertEqual(reader.send(reader.command(0x53, b"\xD4\x03\x10ngr\x00\x01")), (b"", "9402"))
        self.assertEqual(reader.send(bytes.fromhex("90530000FF01")), (b"", "6700"))
        self.assertEqual(reader.send(reader.command(0x53, ndef(ext("ngr", b"\x00\x02")))), (b"", "9502"))

    def test_smart_tap_commands_need_the_applet_selected(self):
        phone = self.make_phone()
        phone.begin_tap()
        self.assertEqual(phone.answer(bytes.fromhex("9050000000")), b"\x6D\x00")

    def test_bad_phone_files_are_refused(self):
        for overrides in ({"wallet": "ApplePay"}, {"compression": "always"}, {"chunk_bytes": 8}, {"misbehave": "explode"},
                          {"passes": [{"collector_id": 1, "type": "ticket"}]}, {"passes": [{"collector_id": 1, "object_id": "01"}]},
                          {"legacy_select": "yes"}, {"customer_id": "0011"}):
            with self.assertRaises(ValueError, msg=overrides):
                Phone(dict(self.config, **overrides), folder=self.folder.name)


class MisbehaviourTests(PhoneTestCase):
    def negotiated(self, mode):
        reader = self.reader(self.make_phone(misbehave=mode))
        reader.select()
        self.assertEqual(reader.negotiate(), "9000")
        return reader

    def test_status_modes_answer_without_data(self):
        for mode, sw in (("user_must_choose", "9302"), ("no_pass", "9001"), ("retry", "9200"), ("too_many_requests", "9406")):
            self.assertEqual(self.negotiated(mode).get_data()[:2], (b"", sw), mode)

    def test_bad_mac_fails_the_hmac_check(self):
        reader = self.negotiated("bad_mac")
        data, sw, _ = reader.get_data()
        self.assertEqual(sw, "9000")
        with self.assertRaisesRegex(ValueError, "HMAC"):
            reader.open_bundle(data)

    def test_truncated_records_pass_the_hmac_but_not_the_ndef(self):
        reader = self.negotiated("truncated_records")
        data, _, _ = reader.get_data(pos=bytes.fromhex("0000000001"))
        flags, bundle = reader.open_bundle(data)
        with self.assertRaises(AssertionError):
            records(bundle)

    def test_wrong_lengths_claim_more_than_the_message(self):
        reader = self.negotiated("wrong_lengths")
        data, sw, _ = reader.get_data()
        self.assertEqual(sw, "9000")
        with self.assertRaises(AssertionError):
            records(data)
        with self.assertRaises(ValueError):
            virtual_android.parse_ndef(data)

    def test_endless_9100_never_ends(self):
        data, sw, rounds = self.negotiated("endless_9100").get_data(max_rounds=50)
        self.assertEqual((sw, rounds), ("9100", 50))

    def test_oversized_inflation_is_a_mebibyte_in_a_kibibyte(self):
        reader = self.negotiated("oversized_inflation")
        data, sw, _ = reader.get_data(pos=bytes.fromhex("0000000001"))
        self.assertEqual(sw, "9000")
        self.assertLess(len(data), 2000)
        flags, bundle = reader.open_bundle(data)
        self.assertEqual((flags, len(bundle)), (0x03, 1 << 20))

    def test_bad_dpk_is_no_point(self):
        reader = self.reader(self.make_phone(misbehave="bad_dpk"))
        ose = reader.select()
        self.assertEqual(reader.negotiate(), "9000")
        for key in (ose["C3"], reader.device_key_bytes):
            with self.assertRaises(ValueError):
                ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)


class ControlTests(PhoneTestCase):
    def test_phone_files_choose_the_phone(self):
        self.assertIsInstance(self.make_phone(), virtual_android.Phone)
        path = os.path.join(self.folder.name, "iphone.json")
        with open(path, "w") as handle:
            json.dump({"passes": []}, handle)
        self.assertEqual(type(virtual_card.load_phone(path, None)).__module__, "virtual_iphone")

    def test_line_commands(self):
        phone = self.make_phone()
        controller = virtual_card.Controller(None, phone)
        self.assertEqual(controller.handle("misbehave bad_mac"), {"ok": True, "misbehave": "bad_mac"})
        self.assertEqual(controller.handle("chunk-bytes 64")["chunk_bytes"], 64)
        self.assertEqual(controller.handle("compression never")["compression"], "never")
        self.assertTrue(controller.handle("legacy-select on")["legacy_select"])
        self.assertEqual(controller.handle("pass-value 00000000000000A1 gold")["value"], "gold")
        for bad in ("misbehave explode", "chunk-bytes 300", "compression sometimes", "pass-value 00000000000000FF x"):
            with self.assertRaises(ValueError, msg=bad):
                controller.handle(bad)
        stats = controller.handle("stats")
        self.assertEqual(stats["smarttap"]["select_ose"], 0)
        self.assertIn("last", stats)

    def test_pass_value_changes_the_next_read(self):
        phone = self.make_phone()
        phone.control("pass-value", ["00000000000000A1", "gold"])
        self.assertEqual(objects(self.reader(phone).read()[1])[0][0][2], "gold")

    def test_apdus_lists_the_tap(self):
        reader = self.reader()
        reader.read()
        apdus = reader.phone.control("apdus", [])["apdus"]
        self.assertEqual([apdu[:4] for apdu in apdus], ["00A4", "9053", "9050"])


if __name__ == "__main__":
    unittest.main()
