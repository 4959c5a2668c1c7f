"""Tests of the virtual iPhone, in process: `Phone.answer(apdu)` directly, no pcscd, no sockets.

Run from the repository root: python3 -m unittest scripts/rig/test_virtual_iphone.py

The decryption here is written separately from the phone's encryption and is first checked on
the published capture (docs/vas-protocol.md §8.2), so the phone is judged by a known-good reader.
"""

import hashlib
import json
import os
import struct
import sys
import tempfile
import time
import unittest

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import card_model  # noqa: E402
import virtual_card  # noqa: E402
import virtual_iphone  # noqa: E402
from virtual_iphone import Phone  # noqa: E402

REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# §8.1: the PassKit demo key (public, published by proxmark3 and kormax).
PASSKIT_PEM = b"""-----BEGIN EC PRIVATE KEY-----
MHcCAQEEID0VR/I814rQUqWIYPEhno+3kexN/jN2n1ub+mJ6ZWyhoAoGCCqGSM49
AwEHoUQDQgAEwKMBv29ByaSLiGF0FctuyB+Hs2oZ1kDIYhTVllPexNGudAlm8IWO
H0e+Exc97/zBdawu7Yl+XytQONszGzAK7w==
-----END EC PRIVATE KEY-----
"""
PASSKIT_PASS = "pass.com.passkit.pksamples.nfcdemo"
# §8.2: the 9F27 of kormax/apple-vas examples/traces/VASONLY.READ.log, and its published plaintext.
VASONLY_CRYPTOGRAM = bytes.fromhex(
    "c0b77375d3f37956d84a538f28ac2a04b38ddc1a67d3647a4dd30abd736ea1cea8038388692e89db99e4746d872de782"
    "395640c536e79a75c47a9343da0af3937f06eeca7a865c4ad05a2c543ad2"
)
# §8.5: synthetic variant A and B cryptograms for a fixed ephemeral scalar.
SYNTHETIC_EPHEMERAL = 0x45BDA3CFFFF918F2CEFD9DC2E36D9E931494B2D43BE3A2F98AE37F63DFB02F80
SYNTHETIC_PLAINTEXT = bytes.fromhex("2a5b196e") + b"SYNTHETIC-TEST-0001"
SYNTHETIC = {
    "A": "c0b7737598b29d717d330d6d0fb5ada5a283406dc2717166f47b20f610f713a581e1351981c5b98371a3509c30dfadb073074ba73c994e8a7862de0f7cf085272e37d98785f58abb804605",
    "B": "c0b7737598b29d717d330d6d0fb5ada5a283406dc2717166f47b20f610f713a581e135196aab655f54cd9ea9fb2e326c812cb7d6b316435d0acc0bcb4b44af679b8e3ca73387ca0ab079a3",
}

DEMO_PHONE = os.path.join(REPOSITORY, "scripts/rig/demo-phone.json")
DEMO_KEY = "/tmp/passtap-demo/keys/pass.com.passtap.demo.pem"  # made by `passtap keygen` in scripts/demo
DEMO_PASS = "pass.com.passtap.demo"
DEMO_MESSAGE = "demo member 0042"

LOYALTY = "pass.com.example.loyalty"
COFFEE = "pass.com.example.coffee"
SELECT_VAS = bytes.fromhex("00A404000A4F53452E5641532E303100")
SELECT_PPSE = bytes.fromhex("00A404000E325041592E5359532E444446303100")


def reader_decrypt(private_key, pass_type_id, cryptogram, variant):
    """A reader's decryption (§5.2), written apart from the phone: (key id, timestamp, message).

    Raises InvalidTag when the cryptogram does not authenticate under `variant`."""
    kid, phone_x, sealed = cryptogram[:4], cryptogram[4:36], cryptogram[36:]
    phone_point = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b"\x02" + phone_x)
    z = private_key.exchange(ec.ECDH(), phone_point)
    pass_hash = hashlib.sha256(pass_type_id.encode("ascii")).digest()
    label = bytes.fromhex("41 70 70 6c 65 50 61 79 20 65 6e 63 72 79 70 74 65 64 20 56 41 53 20 64 61 74 61")
    if variant == "A":
        shared_info, aad = bytes.fromhex("0d 69 64 2d 61 65 73 32 35 36 2d 47 43 4d") + label + pass_hash, None
    else:
        shared_info, aad = label, pass_hash
    key = hashlib.sha256(z + struct.pack(">I", 1) + shared_info).digest()
    plaintext = AESGCM(key).decrypt(b"\x00" * 16, sealed, aad)
    (timestamp,) = struct.unpack(">I", plaintext[:4])
    return kid, timestamp, plaintext[4:].decode("utf-8")


def get_vas_data(pass_type_id=None, more=False, p2=0x01, version=b"\x01\x00"):
    """A GET VAS DATA command as a reader builds it (§3.4), short-form TLV by hand."""
    data = b"\x9F\x22\x02" + version
    if pass_type_id is not None:
        data += b"\x9F\x25\x20" + hashlib.sha256(pass_type_id.encode()).digest()
    data += b"\x9F\x26\x04\x00\x80\x00" + bytes([(0x80 if more else 0x00) | 0x02])
    data += b"\x9F\x28\x04\x12\x34\x56\x78"
    return bytes([0x80, 0xCA, 0x01, p2, len(data)]) + data + b"\x00"


def apple_now():
    return int(time.time()) - 978307200


class PublishedVectorTests(unittest.TestCase):
    """The test's own decryption against published bytes, so it can judge the phone."""

    def test_vasonly_capture_decrypts_to_the_published_plaintext(self):
        key = serialization.load_pem_private_key(PASSKIT_PEM, password=None)
        kid, timestamp, message = reader_decrypt(key, PASSKIT_PASS, VASONLY_CRYPTOGRAM, "A")
        self.assertEqual(kid.hex(), "c0b77375")
        self.assertEqual(timestamp, 0x2A5B196E)  # 2023-07-09 16:35:58 UTC
        self.assertEqual(time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(timestamp + 978307200)), "2023-07-09 16:35:58")
        self.assertEqual(message, "6d1UlFpnOc50iVKRaboDOK")

    def test_the_capture_does_not_decrypt_as_variant_b(self):
        key = serialization.load_pem_private_key(PASSKIT_PEM, password=None)
        with self.assertRaises(InvalidTag):
            reader_decrypt(key, PASSKIT_PASS, VASONLY_CRYPTOGRAM, "B")

    def test_the_repository_scalar_is_the_same_key(self):
        with open(os.path.join(REPOSITORY, "Tests/VASTests/Vectors/Keys/passkit-scalar.hex")) as handle:
            scalar = int(handle.read().strip(), 16)
        key = ec.derive_private_key(scalar, ec.SECP256R1())
        self.assertEqual(reader_decrypt(key, PASSKIT_PASS, VASONLY_CRYPTOGRAM, "A")[2], "6d1UlFpnOc50iVKRaboDOK")

    def test_the_phone_encryption_reproduces_the_synthetic_vectors(self):
        public = serialization.load_pem_private_key(PASSKIT_PEM, password=None).public_key()
        for variant, expected in SYNTHETIC.items():
            ephemeral = ec.derive_private_key(SYNTHETIC_EPHEMERAL, ec.SECP256R1())
            cryptogram = virtual_iphone.make_cryptogram(public, PASSKIT_PASS, SYNTHETIC_PLAINTEXT, variant, ephemeral)
            self.assertEqual(cryptogram.hex(), expected, variant)


class PhoneTestCase(unittest.TestCase):
    """A phone with a loyalty pass (key file: private PEM) and a coffee pass (public PEM)."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)
        self.loyalty_key = ec.generate_private_key(ec.SECP256R1())
        self.coffee_key = ec.generate_private_key(ec.SECP256R1())
        self.write("loyalty.pem", self.loyalty_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()))
        self.write("coffee.pem", self.coffee_key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        self.config = {
            "passes": [
                {"pass_type_id": LOYALTY, "key": os.path.join(self.folder.name, "loyalty.pem"), "message": "member 1234"},
                {"pass_type_id": COFFEE, "key": "coffee.pem", "message": "café 7", "needs_auth": False},
            ]
        }
        self.phone = self.make_phone()

    def write(self, name, data):
        with open(os.path.join(self.folder.name, name), "wb") as handle:
            handle.write(data)

    def make_phone(self, **overrides):
        config = dict(self.config, **overrides)
        self.write("phone.json", json.dumps(config).encode())
        phone = Phone.from_file(os.path.join(self.folder.name, "phone.json"))
        phone.begin_tap()
        return phone

    def read(self, pass_type_id=LOYALTY, phone=None):
        """SELECT OSE.VAS.01 then one GET VAS DATA; the GET VAS DATA answer."""
        phone = phone or self.phone
        self.assertEqual(phone.answer(SELECT_VAS)[-2:], b"\x90\x00")
        return phone.answer(get_vas_data(pass_type_id))

    def cryptogram(self, answer, message_length=11):
        """The 9F27 value of a successful answer, checking the exact layout around it."""
        length = 4 + 32 + 4 + message_length + 16
        self.assertEqual(answer[:8], bytes([0x70, 6 + length, 0x9F, 0x2A, 0x00, 0x9F, 0x27, length]))
        self.assertEqual(answer[-2:], b"\x90\x00")
        self.assertEqual(len(answer), 8 + length + 2)
        return answer[8:-2]


class CryptogramTests(PhoneTestCase):
    def test_variant_a_decrypts_only_as_variant_a(self):
        cryptogram = self.cryptogram(self.read())
        kid, timestamp, message = reader_decrypt(self.loyalty_key, LOYALTY, cryptogram, "A")
        self.assertEqual(message, "member 1234")
        x = self.loyalty_key.public_key().public_numbers().x.to_bytes(32, "big")
        self.assertEqual(kid, hashlib.sha256(x).digest()[:4])
        self.assertLessEqual(abs(timestamp - apple_now()), 2)
        with self.assertRaises(InvalidTag):
            reader_decrypt(self.loyalty_key, LOYALTY, cryptogram, "B")

    def test_variant_b_decrypts_only_as_variant_b(self):
        phone = self.make_phone(variant="B")
        cryptogram = self.cryptogram(self.read(phone=phone))
        self.assertEqual(reader_decrypt(self.loyalty_key, LOYALTY, cryptogram, "B")[2], "member 1234")
        with self.assertRaises(InvalidTag):
            reader_decrypt(self.loyalty_key, LOYALTY, cryptogram, "A")

    def test_variant_command_switches_at_run_time(self):
        self.assertEqual(self.phone.control("variant", ["B"]), {"ok": True, "variant": "B"})
        cryptogram = self.cryptogram(self.read())
        self.assertEqual(reader_decrypt(self.loyalty_key, LOYALTY, cryptogram, "B")[2], "member 1234")
        with self.assertRaises(ValueError):
            self.phone.control("variant", ["C"])

    def test_public_key_file_and_utf8_message(self):
        cryptogram = self.cryptogram(self.read(COFFEE), message_length=len("café 7".encode()))
        self.assertEqual(reader_decrypt(self.coffee_key, COFFEE, cryptogram, "A")[2], "café 7")

    def test_every_request_uses_a_fresh_ephemeral_key(self):
        first = self.cryptogram(self.read())
        second = self.cryptogram(self.read())
        self.assertEqual(first[:4], second[:4])
        self.assertNotEqual(first[4:36], second[4:36])

    def test_clock_offset_moves_the_timestamp(self):
        phone = self.make_phone(clock_offset_s=-3600)
        timestamp = reader_decrypt(self.loyalty_key, LOYALTY, self.cryptogram(self.read(phone=phone)), "A")[1]
        self.assertLessEqual(abs(timestamp - (apple_now() - 3600)), 2)
        self.assertEqual(phone.control("clock-offset", ["120"]), {"ok": True, "clock_offset_s": 120})
        timestamp = reader_decrypt(self.loyalty_key, LOYALTY, self.cryptogram(self.read(phone=phone)), "A")[1]
        self.assertLessEqual(abs(timestamp - (apple_now() + 120)), 2)


class TimestampTests(PhoneTestCase):
    FIXED = 0x2A5B196E  # 2023-07-09 16:35:58 UTC, the §8.2 capture's

    def timestamp(self, pass_type_id=LOYALTY, key=None, phone=None, message_length=11):
        cryptogram = self.cryptogram(self.read(pass_type_id, phone=phone), message_length)
        return reader_decrypt(key or self.loyalty_key, pass_type_id, cryptogram, "A")[1]

    def test_a_fixed_timestamp_from_the_file_is_used_verbatim(self):
        self.config["passes"][0]["timestamp"] = self.FIXED
        phone = self.make_phone(clock_offset_s=-3600)
        self.assertEqual(self.timestamp(phone=phone), self.FIXED)
        self.assertEqual(self.timestamp(phone=phone), self.FIXED)
        # The pass without one keeps the phone's clock, offset included.
        coffee = self.timestamp(COFFEE, self.coffee_key, phone, len("café 7".encode()))
        self.assertLessEqual(abs(coffee - (apple_now() - 3600)), 2)

    def test_the_timestamp_bounds_are_4_bytes(self):
        for seconds in (0, 0xFFFFFFFF):
            self.config["passes"][0]["timestamp"] = seconds
            self.assertEqual(self.timestamp(phone=self.make_phone()), seconds)

    def test_bad_timestamps_in_the_file_are_refused(self):
        for bad in (-1, 0x100000000, "774000000", 1.5, True):
            self.config["passes"][0]["timestamp"] = bad
            with self.assertRaises(ValueError, msg=repr(bad)):
                self.make_phone()

    def test_timestamp_command_sets_and_drops_a_fixed_timestamp(self):
        reply = self.phone.control("timestamp", [LOYALTY, str(self.FIXED)])
        self.assertEqual(reply, {"ok": True, "pass_type_id": LOYALTY, "timestamp": self.FIXED})
        self.assertEqual(self.timestamp(), self.FIXED)
        self.phone.control("clock-offset", ["600"])
        self.assertEqual(self.timestamp(), self.FIXED)
        self.assertEqual(self.phone.control("timestamp", [LOYALTY, "now"]), {"ok": True, "pass_type_id": LOYALTY, "timestamp": None})
        self.assertLessEqual(abs(self.timestamp() - (apple_now() + 600)), 2)

    def test_timestamp_command_refuses_bad_arguments(self):
        for args in ([LOYALTY, "-1"], [LOYALTY, "4294967296"], [LOYALTY, "soon"], ["pass.com.example.nothere", "5"], [LOYALTY]):
            with self.assertRaises(ValueError, msg=repr(args)):
                self.phone.control("timestamp", args)
        self.assertIsNone(self.phone.passes[hashlib.sha256(LOYALTY.encode()).digest()].timestamp)

    def test_timestamp_command_through_the_controller(self):
        controller = virtual_card.Controller(None, self.phone)
        self.assertEqual(controller.handle("timestamp %s 774000000" % COFFEE), {"ok": True, "pass_type_id": COFFEE, "timestamp": 774000000})
        self.assertEqual(self.timestamp(COFFEE, self.coffee_key, message_length=len("café 7".encode())), 774000000)
        self.assertIn("timestamp PASS_TYPE_ID", controller.handle("dance")["error"])


class DemoPhoneTests(unittest.TestCase):
    """scripts/rig/demo-phone.json as scripts/demo uses it, with a fresh key in place of the one
    `passtap keygen` makes."""

    def test_the_demo_pass_decrypts_to_the_demo_message(self):
        with open(DEMO_PHONE) as handle:
            config = json.load(handle)
        self.assertEqual([entry["key"] for entry in config["passes"]], [DEMO_KEY])
        with tempfile.TemporaryDirectory() as folder:
            key = ec.generate_private_key(ec.SECP256R1())
            path = os.path.join(folder, "demo.pem")
            with open(path, "wb") as handle:
                handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
            config["passes"][0]["key"] = path
            # As Phone.from_file would: keys relative to the demo file's folder (this one is absolute).
            phone = Phone(config, None, os.path.dirname(DEMO_PHONE))
        phone.begin_tap()
        self.assertEqual(phone.answer(SELECT_VAS)[-2:], b"\x90\x00")
        answer = phone.answer(get_vas_data(DEMO_PASS))
        self.assertEqual(answer[-2:], b"\x90\x00")
        self.assertEqual(answer[5:7], b"\x9F\x27")
        cryptogram = answer[8:-2]
        self.assertEqual(len(cryptogram), answer[7])
        kid, timestamp, message = reader_decrypt(key, DEMO_PASS, cryptogram, "A")
        self.assertEqual(message, DEMO_MESSAGE)
        self.assertLessEqual(abs(timestamp - apple_now()), 2)
        self.assertEqual(phone.answer(get_vas_data("pass.com.example.loyalty")), b"\x6A\x83")


class StatusTests(PhoneTestCase):
    def test_unknown_pass_is_6a83(self):
        self.assertEqual(self.read("pass.com.example.nothere"), b"\x6A\x83")

    def test_needs_auth_from_the_file_is_6287(self):
        self.config["passes"][0]["needs_auth"] = True
        self.assertEqual(self.read(phone=self.make_phone()), b"\x62\x87")

    def test_needs_auth_command_locks_and_releases(self):
        self.assertEqual(self.phone.control("needs-auth", [LOYALTY, "on"]), {"ok": True, "pass_type_id": LOYALTY, "needs_auth": True})
        self.assertEqual(self.read(), b"\x62\x87")
        self.phone.control("needs-auth", [LOYALTY, "off"])
        self.assertEqual(self.read()[-2:], b"\x90\x00")
        with self.assertRaises(ValueError):
            self.phone.control("needs-auth", ["pass.com.example.nothere", "on"])
        with self.assertRaises(ValueError):
            self.phone.control("needs-auth", [LOYALTY, "maybe"])

    def test_url_only_is_9000_without_data(self):
        self.phone.answer(SELECT_VAS)
        self.assertEqual(self.phone.answer(get_vas_data(None, p2=0x00)), b"\x90\x00")

    def test_malformed_requests(self):
        self.phone.answer(SELECT_VAS)
        good = get_vas_data(LOYALTY)
        self.assertEqual(self.phone.answer(get_vas_data(LOYALTY, version=b"\x02\x00")), b"\x63\x40")
        self.assertEqual(self.phone.answer(good[:2] + b"\x02" + good[3:]), b"\x6B\x00")
        self.assertEqual(self.phone.answer(good[:3] + b"\x05" + good[4:]), b"\x6B\x00")
        self.assertEqual(self.phone.answer(good[:-10]), b"\x67\x00")
        self.assertEqual(self.phone.answer(bytes.fromhex("80CA010105 9F22040100 00")), b"\x6A\x80")
        self.assertEqual(self.phone.answer(get_vas_data(None, p2=0x01)), b"\x6A\x80")

    def test_get_vas_data_needs_the_vas_applet_selected(self):
        self.assertEqual(self.phone.answer(get_vas_data(LOYALTY)), b"\x6D\x00")
        self.phone.answer(SELECT_VAS)
        self.phone.answer(bytes.fromhex("00A4040007A000000004101000"))
        self.assertEqual(self.phone.answer(get_vas_data(LOYALTY)), b"\x6D\x00")

    def test_bad_config_is_refused(self):
        with self.assertRaises(ValueError):
            self.make_phone(misbehave="sulk")
        with self.assertRaises(ValueError):
            self.make_phone(variant="C")
        self.config["passes"][0]["message"] = "x" * 65
        with self.assertRaises(ValueError):
            self.make_phone()


class MisbehaviourTests(PhoneTestCase):
    def misbehave(self, mode):
        self.assertEqual(self.phone.control("misbehave", [mode]), {"ok": True, "misbehave": mode})

    def test_truncated_tlv_claims_more_than_it_sends(self):
        self.misbehave("truncated_tlv")
        answer = self.read()
        self.assertEqual(answer[-2:], b"\x90\x00")
        self.assertEqual(answer[:2], bytes([0x70, 6 + 67]))
        self.assertEqual(len(answer) - 2, 2 + 6 + 67 - 16)

    def test_missing_9f27(self):
        self.misbehave("missing_9f27")
        self.assertEqual(self.read(), bytes.fromhex("70039F2A009000"))

    def test_oversized_cryptogram_is_130_bytes_with_long_form_length(self):
        self.misbehave("oversized_cryptogram")
        answer = self.read()
        self.assertEqual(answer[:10], bytes.fromhex("708189 9F2A00 9F278182"))
        self.assertEqual(len(answer), 3 + 3 + 4 + 130 + 2)
        self.assertEqual(answer[-2:], b"\x90\x00")
        message = reader_decrypt(self.loyalty_key, LOYALTY, answer[10:-2], "A")[2]
        self.assertEqual(message, "member 1234" + "." * 63)

    def test_chain_61xx_delivers_the_answer_by_get_response(self):
        self.misbehave("chain_61xx")
        self.assertEqual(self.read(), bytes([0x61, 2 + 6 + 67]))
        first = self.phone.answer(bytes.fromhex("00C0000020"))
        self.assertEqual(first[-2:], bytes([0x61, 75 - 32]))
        rest = self.phone.answer(bytes.fromhex("00C0000000"))
        answer = first[:-2] + rest
        cryptogram = self.cryptogram(answer)
        self.assertEqual(reader_decrypt(self.loyalty_key, LOYALTY, cryptogram, "A")[2], "member 1234")
        self.assertEqual(self.phone.answer(bytes.fromhex("00C0000000")), b"\x6F\x00")

    def test_chain_forever_never_ends(self):
        self.misbehave("chain_forever")
        self.assertEqual(self.read(), b"\x61\x10")
        for _ in range(50):
            self.assertEqual(self.phone.answer(bytes.fromhex("00C0000010")), b"\x61\x10")
        self.phone.begin_tap()
        self.assertEqual(self.phone.answer(bytes.fromhex("00C0000010")), b"\x6F\x00")

    def test_no_vas_applet_is_a_plain_card(self):
        self.misbehave("no_vas_applet")
        self.assertEqual(self.phone.answer(SELECT_VAS), b"\x6A\x82")
        self.assertEqual(self.phone.answer(get_vas_data(LOYALTY)), b"\x6D\x00")
        self.assertEqual(self.phone.answer(bytes.fromhex("00A4040007A000000004101000"))[-2:], b"\x90\x00")

    def test_oversized_label_is_8000_bytes_in_a_valid_template(self):
        self.misbehave("oversized_label")
        answer = self.phone.answer(SELECT_VAS)
        self.assertEqual(answer[-2:], b"\x90\x00")
        fci = virtual_iphone.parse_tlv(answer[:-2])["6F"]
        self.assertEqual(virtual_iphone.parse_tlv(fci)["50"], b"\x01" * 8000)
        self.assertEqual(answer[4:8], bytes.fromhex("50821F40"))

    def test_oversized_fci_is_an_8_kib_mastercard_fci(self):
        self.misbehave("oversized_fci")
        answer = self.phone.answer(bytes.fromhex("00A4040007A000000004101000"))
        self.assertEqual(answer[-2:], b"\x90\x00")
        self.assertGreater(len(answer), 8000)
        fci = virtual_iphone.parse_tlv(virtual_iphone.parse_tlv(answer[:-2])["6F"])
        self.assertEqual(fci["84"], bytes.fromhex("A0000000041010"))
        proprietary = virtual_iphone.parse_tlv(fci["A5"])
        self.assertEqual(proprietary, {"50": b"A" * 8000, "87": b"\x01"})
        self.assertEqual(self.read()[-2:], b"\x90\x00")  # VAS itself is untouched

    def test_oversized_uid_is_4096_bytes(self):
        self.misbehave("oversized_uid")
        self.assertEqual(self.phone.answer(bytes.fromhex("FFCA000000")), b"\x04" * 4096 + b"\x90\x00")

    def test_wrong_le_answers_6c00_even_with_le_256(self):
        self.misbehave("wrong_le")
        self.assertEqual(self.read(), b"\x6C\x00")
        self.assertEqual(self.phone.answer(get_vas_data(LOYALTY)), b"\x6C\x00")

    def test_empty_answer_has_no_status_word(self):
        self.misbehave("empty_answer")
        self.assertEqual(self.read(), b"")

    def test_one_byte_answer_is_half_a_status_word(self):
        self.misbehave("one_byte_answer")
        self.assertEqual(self.read(), b"\x90")

    def test_contradictory_tlv_template_length_is_shorter_than_its_child(self):
        self.misbehave("contradictory_tlv")
        answer = self.read()
        self.assertEqual(answer[-2:], b"\x90\x00")
        self.assertEqual(answer[:2], bytes([0x70, 6 + 67 - 16]))
        self.assertEqual(len(answer), 2 + 6 + 67 + 2)  # every byte is there
        self.assertEqual(answer[5:8], bytes([0x9F, 0x27, 67]))  # the child claims more than the template
        with self.assertRaises(ValueError):
            virtual_iphone.parse_tlv(answer[2:2 + 6 + 67 - 16])

    def test_duplicate_9f27_holds_the_pass_then_a_forged_cryptogram(self):
        self.misbehave("duplicate_9f27")
        answer = self.read()
        self.assertEqual(answer[-2:], b"\x90\x00")
        template = answer[3:-2]
        self.assertEqual(answer[:3], bytes([0x70, 0x81, 3 + 3 + 67 + 3 + 67]))
        first = template[6:6 + 67]
        self.assertEqual(template[3:6], bytes([0x9F, 0x27, 67]))
        self.assertEqual(template[73:76], bytes([0x9F, 0x27, 67]))
        second = template[76:]
        self.assertEqual(reader_decrypt(self.loyalty_key, LOYALTY, first, "A")[2], "member 1234")
        self.assertEqual(reader_decrypt(self.loyalty_key, LOYALTY, second, "A")[2], "forged 0666")

    def test_replayed_cryptogram_repeats_the_last_answer_byte_for_byte(self):
        first = self.read()
        self.cryptogram(first)
        self.misbehave("replayed_cryptogram")
        self.assertEqual(self.read(), first)
        self.assertEqual(self.read(), first)
        self.misbehave("none")
        self.assertNotEqual(self.read(), first)

    def test_replayed_cryptogram_without_an_earlier_answer_sends_a_fresh_one_and_keeps_it(self):
        self.misbehave("replayed_cryptogram")
        first = self.read()
        self.cryptogram(first)
        self.assertEqual(self.read(), first)

    def test_misbehaviours_leave_error_answers_alone(self):
        self.misbehave("missing_9f27")
        self.assertEqual(self.read("pass.com.example.nothere"), b"\x6A\x83")

    def test_unknown_misbehaviour_is_refused_and_none_restores(self):
        with self.assertRaises(ValueError):
            self.phone.control("misbehave", ["sulk"])
        self.misbehave("missing_9f27")
        self.misbehave("none")
        self.cryptogram(self.read())


class SelectTests(PhoneTestCase):
    def test_select_vas_layout(self):
        answer = self.phone.answer(SELECT_VAS)
        self.assertEqual(answer[:20], bytes.fromhex("6F1D 5008 4170706C65506179 9F2102 0100 9F2404"))
        self.assertEqual(answer[24:], bytes.fromhex("9F2304 0000003E 9000"))
        self.assertEqual(len(answer), 33)
        nonces = {self.phone.answer(SELECT_VAS)[20:24] for _ in range(5)}
        self.assertGreater(len(nonces | {answer[20:24]}), 1)

    def test_configured_wallet_and_capabilities(self):
        phone = self.make_phone(wallet="AndroidPay", capabilities="0000001E")
        answer = phone.answer(SELECT_VAS)
        self.assertEqual(answer[:14], bytes.fromhex("6F1F500A") + b"AndroidPay")
        self.assertEqual(answer[-9:-2], bytes.fromhex("9F23040000001E"))

    def test_ppse_lists_the_applications_the_phone_answers(self):
        expected = bytes.fromhex(
            "6F43" "840E325041592E5359532E4444463031" "A531" "BF0C2E"
            "6118" "4F07A0000000041010" "500A4D617374657243617264" "870101"
            "6112" "4F07A0000000031010" "5004" "56495341" "870102"
        )
        self.assertEqual(self.phone.answer(SELECT_PPSE), expected + b"\x90\x00")
        mastercard = self.phone.answer(bytes.fromhex("00A4040007A000000004101000"))
        self.assertEqual(mastercard, bytes.fromhex(card_model.DEFAULT_PROFILE["applications"][0]["fci"]) + b"\x90\x00")
        visa = self.phone.answer(bytes.fromhex("00A4040007A000000003101000"))
        self.assertEqual(visa, bytes.fromhex("6F148407A0000000031010A509500456495341870102" "9000"))

    def test_other_apdus_fall_through_to_the_card(self):
        self.assertEqual(self.phone.answer(bytes.fromhex("FFCA000000")), bytes.fromhex("04A1B2C3D4E5F69000"))
        self.assertEqual(self.phone.answer(bytes.fromhex("00A4040005A00000000100")), b"\x6A\x82")
        self.assertEqual(self.phone.answer(bytes.fromhex("00B0000000")), b"\x6D\x00")


class ControlTests(PhoneTestCase):
    def test_apdus_lists_this_taps_commands_in_order(self):
        self.read()
        self.phone.answer(get_vas_data(COFFEE))
        reply = self.phone.control("apdus", [])
        self.assertEqual(reply["apdus"], [SELECT_VAS.hex().upper(), get_vas_data(LOYALTY).hex().upper(), get_vas_data(COFFEE).hex().upper()])
        self.phone.begin_tap()
        self.assertEqual(self.phone.control("apdus", []), {"ok": True, "apdus": []})

    def test_controller_routes_phone_commands_and_stats(self):
        controller = virtual_card.Controller(None, self.phone)
        self.assertEqual(controller.handle("misbehave chain_61xx"), {"ok": True, "misbehave": "chain_61xx"})
        self.assertEqual(controller.handle("clock-offset -3600"), {"ok": True, "clock_offset_s": -3600})
        self.phone.control("misbehave", ["none"])
        self.read()
        self.read("pass.com.example.nothere")
        stats = controller.handle("stats")
        self.assertEqual(stats["vas"], {"select_vas": 2, "get_vas_data": 2, "success": 1, "not_found": 1, "needs_auth": 0, "url_only": 0})
        self.assertEqual(controller.handle("apdus")["apdus"][0], SELECT_VAS.hex().upper())
        unknown = controller.handle("dance")
        self.assertFalse(unknown["ok"])
        self.assertIn("needs-auth", unknown["error"])
        with self.assertRaises(ValueError):
            controller.handle("variant")

    def test_plain_card_controller_is_unchanged(self):
        controller = virtual_card.Controller(None, card_model.Card({}))
        self.assertEqual(controller.handle("stats"), {"ok": True, "taps": 0, "present": False, "last": None})
        self.assertEqual(controller.handle("apdus"), {"ok": False, "error": "unknown command 'apdus' (tap, tap-for MS, remove, pull-after N, stall, delay MS, reader MODE, feedback, stats, quit)"})


ECP_VAS = bytes.fromhex("6A01000000")  # VAS or payment (§7.2), without CRC
ECP_PAYMENT_ONLY = bytes.fromhex("6A01000003")


class EcpTests(PhoneTestCase):
    """requires_ecp (§7.3): the phone answers polls only after hearing ECP, else as a payment device."""

    def ecp_phone(self, **overrides):
        phone = self.make_phone(requires_ecp=True, ecp_cycles=2, **overrides)
        phone.enter_field()
        return phone

    def test_answers_only_after_two_ecp_frames_then_reads_passes(self):
        phone = self.ecp_phone()
        self.assertTrue(phone.hear_ecp(ECP_VAS))
        self.assertFalse(phone.poll())
        self.assertTrue(phone.hear_ecp(ECP_VAS))
        self.assertTrue(phone.poll())
        self.assertEqual(phone.status()["ecp"], {"requires_ecp": True, "ecp_cycles": 2, "heard": 2, "polls_without_ecp": 0,
                                                 "mode": "vas", "tci": "000000", "payment_only": False})
        phone.begin_tap()
        self.cryptogram(self.read(phone=phone))

    def test_polled_without_ecp_it_answers_as_a_payment_device(self):
        phone = self.ecp_phone()
        self.assertFalse(phone.poll())
        self.assertTrue(phone.poll())
        self.assertTrue(phone.payment_only)
        phone.begin_tap()
        self.assertEqual(phone.answer(SELECT_VAS), b"\x6A\x82")
        self.assertEqual(phone.answer(SELECT_PPSE)[-2:], b"\x90\x00")
        self.assertEqual(phone.answer(bytes.fromhex("00A4040007A000000004101000"))[-2:], b"\x90\x00")
        self.assertEqual(phone.status()["vas"]["select_vas"], 0)

    def test_one_ecp_then_silence_never_answers(self):
        phone = self.ecp_phone()
        phone.hear_ecp(ECP_VAS)
        for _ in range(5):
            self.assertFalse(phone.poll())

    def test_payment_only_ecp_makes_a_payment_device(self):
        phone = self.ecp_phone()
        phone.hear_ecp(ECP_PAYMENT_ONLY)
        phone.hear_ecp(ECP_PAYMENT_ONLY)
        self.assertTrue(phone.poll())
        self.assertEqual(phone.mode, "payment")
        self.assertEqual(phone.answer(SELECT_VAS), b"\x6A\x82")

    def test_other_frames_are_not_ecp(self):
        phone = self.ecp_phone()
        for frame in (bytes.fromhex("6A0100"), bytes.fromhex("6A02800000"), bytes.fromhex("B2"), bytes.fromhex("6A01000000F6F1")):
            self.assertFalse(phone.hear_ecp(frame))
        self.assertEqual(phone.ecp_heard, 0)

    def test_leaving_the_field_forgets_the_count(self):
        phone = self.ecp_phone()
        phone.hear_ecp(ECP_VAS)
        phone.leave_field()
        phone.enter_field()
        phone.hear_ecp(ECP_VAS)
        self.assertFalse(phone.poll())

    def test_a_short_field_drop_keeps_the_count_a_long_one_does_not(self):
        phone = self.ecp_phone()
        phone.hear_ecp(ECP_VAS)
        phone.field_off(1_000_000_000)
        phone.field_on(1_000_000_000 + virtual_iphone.ECP_GRACE_NS)
        phone.hear_ecp(ECP_VAS)
        self.assertTrue(phone.poll())
        phone.field_off(2_000_000_000)
        phone.field_on(2_000_000_001 + virtual_iphone.ECP_GRACE_NS)
        self.assertIsNone(phone.mode)
        self.assertEqual(phone.ecp_heard, 0)
        self.assertFalse(phone.poll())

    def test_decided_mode_holds_through_a_short_drop(self):
        phone = self.ecp_phone()
        phone.hear_ecp(ECP_VAS)
        phone.hear_ecp(ECP_VAS)
        self.assertTrue(phone.poll())
        phone.field_off(5_000_000_000)
        phone.field_on(5_100_000_000)
        self.assertTrue(phone.poll())
        self.assertEqual(phone.mode, "vas")

    def test_behind_vpcd_it_is_a_payment_device_from_the_start(self):
        # The vpcd transport never sends ECP and never polls: begin_tap, then APDUs.
        phone = self.make_phone(requires_ecp=True)
        phone.begin_tap()
        self.assertEqual(phone.answer(SELECT_VAS), b"\x6A\x82")
        self.assertEqual(phone.answer(SELECT_PPSE)[-2:], b"\x90\x00")

    def test_without_requires_ecp_every_poll_is_answered_and_vas_works(self):
        phone = self.make_phone()
        phone.enter_field()
        self.assertTrue(phone.poll())
        self.assertFalse(phone.payment_only)
        self.assertEqual(phone.answer(SELECT_VAS)[-2:], b"\x90\x00")

    def test_bad_settings_are_refused(self):
        for overrides in ({"requires_ecp": "yes"}, {"ecp_cycles": 0}, {"ecp_cycles": 2.5}, {"ecp_cycles": True}):
            with self.assertRaises(ValueError):
                self.make_phone(**overrides)

    def test_control_commands(self):
        phone = self.make_phone()
        self.assertEqual(phone.control("requires-ecp", ["on"]), {"ok": True, "requires_ecp": True})
        self.assertEqual(phone.control("ecp-cycles", ["3"]), {"ok": True, "ecp_cycles": 3})
        with self.assertRaises(ValueError):
            phone.control("ecp-cycles", ["0"])
        with self.assertRaises(ValueError):
            phone.control("requires-ecp", ["maybe"])


if __name__ == "__main__":
    unittest.main()
