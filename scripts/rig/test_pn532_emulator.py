"""Tests of the emulated PN532: in process (framing, the chip's answers, the requires_ecp phone),
then end to end against the REAL libnfc 1.8 pn532_uart driver (nfc-list, and nfc_session.py,
which calls libnfc.so.6 by ctypes), each test with its own emulator on its own pty.

Run from the repository root: python3 -m unittest scripts/rig/test_pn532_emulator.py
The end-to-end tests are skipped where nfc-list or libnfc.so.6 is missing.
"""

import contextlib
import ctypes.util
import io
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import pn532_emulator as pn532  # noqa: E402
from pn532_emulator import Chip, Emulator, FrameParser, Pending, build_frame  # noqa: E402
from card_model import BUILTIN_PROFILES, Card  # noqa: E402
from virtual_iphone import Phone  # noqa: E402

SELECT_VAS = bytes.fromhex("00A404000A4F53452E5641532E303100")
SELECT_PPSE = bytes.fromhex("00A404000E325041592E5359532E444446303100")
SELECT_MASTERCARD = bytes.fromhex("00A4040007A000000004101000")
ECP_VAS = bytes.fromhex("6A01000000")
LOYALTY = "pass.com.example.loyalty"
DEFAULT_ATS = bytes.fromhex("0B787781024B4F4E411411")
EMULATOR = os.path.join(HERE, "pn532_emulator.py")
SESSION = os.path.join(HERE, "nfc_session.py")
HAVE_LIBNFC = shutil.which("nfc-list") is not None and ctypes.util.find_library("nfc") is not None


def host_frame(data):
    """What libnfc writes for a command: a normal (or extended) frame with TFI D4."""
    return build_frame(bytes([0xD4]) + data)


def write_phone(folder, **config):
    """A phone file with one pass (a fresh key) in `folder`; extra keys as given."""
    key = ec.generate_private_key(ec.SECP256R1())
    with open(os.path.join(folder, "loyalty.pem"), "wb") as handle:
        handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    path = os.path.join(folder, "phone.json")
    with open(path, "w") as handle:
        json.dump(dict({"passes": [{"pass_type_id": LOYALTY, "key": "loyalty.pem", "message": "member 1234"}]}, **config), handle)
    return path


class FramingTests(unittest.TestCase):
    def test_normal_frame_has_both_checksums(self):
        self.assertEqual(build_frame(bytes.fromhex("D4022A")[:2]), bytes.fromhex("0000FF02FED4022A00"))
        self.assertEqual(build_frame(bytes.fromhex("D50332010607")), bytes.fromhex("0000FF06FAD50332010607E800"))

    def test_long_answers_use_an_extended_frame(self):
        payload = bytes([0xD5, 0x41, 0x00]) + bytes(range(256)) * 2
        frame = build_frame(payload)
        self.assertEqual(frame[:5], bytes.fromhex("0000FFFFFF"))
        length = frame[5] << 8 | frame[6]
        self.assertEqual(length, len(payload))
        self.assertEqual((frame[5] + frame[6] + frame[7]) & 0xFF, 0)
        self.assertEqual((sum(frame[8:-1])) & 0xFF, 0)
        self.assertEqual(frame[-1], 0)

    def test_parser_skips_the_wake_up_preamble_and_splits_frames(self):
        wake_up = bytes.fromhex("5555") + bytes(14)
        stream = wake_up + host_frame(b"\x14\x01") + host_frame(b"\x02")
        self.assertEqual(FrameParser().feed(stream), [("frame", b"\xD4\x14\x01"), ("frame", b"\xD4\x02")])

    def test_parser_waits_for_bytes_arriving_one_by_one(self):
        parser = FrameParser()
        events = []
        for byte in host_frame(b"\x4A\x01\x00") + pn532.ACK + pn532.NACK:
            events += parser.feed(bytes([byte]))
        self.assertEqual([event[0] for event in events], ["frame", "ack", "nack"])
        self.assertEqual(events[0][1], b"\xD4\x4A\x01\x00")

    def test_extended_host_frame(self):
        data = b"\x40\x01" + bytes(300)
        frame = host_frame(data)
        self.assertEqual(frame[3:5], b"\xFF\xFF")
        self.assertEqual(FrameParser().feed(frame), [("frame", b"\xD4" + data)])

    def test_bad_checksums_and_tfi_are_reported_and_skipped(self):
        good = host_frame(b"\x02")
        bad_data = bytearray(good)
        bad_data[-2] ^= 0xFF
        bad_length = bytearray(good)
        bad_length[4] ^= 0x01
        wrong_tfi = build_frame(b"\xD5\x02")
        events = FrameParser().feed(bytes(bad_data) + bytes(bad_length) + wrong_tfi + good)
        self.assertEqual([event[0] for event in events], ["bad", "bad", "bad", "frame"])
        self.assertEqual([event[2] for event in events[:3]], ["data checksum", "length checksum", "TFI D5"])

    def test_a_frame_left_incomplete_does_not_swallow_the_next_one(self):
        parser = FrameParser()
        self.assertEqual(parser.feed(host_frame(b"\x40\x01" + bytes(20))[:9], now_ns=0), [])
        later = parser.feed(bytes.fromhex("5555") + bytes(14) + host_frame(b"\x14\x01"), now_ns=FrameParser.STALE_NS + 1)
        self.assertEqual(later, [("frame", b"\xD4\x14\x01")])
        # Without the pause, the bad frame is reported and the real one inside it still found.
        parser = FrameParser()
        parser.feed(host_frame(b"\x40\x01" + bytes(20))[:9], now_ns=0)
        events = parser.feed(host_frame(b"\x14\x01") + bytes(20), now_ns=1)
        self.assertEqual([event[0] for event in events], ["bad", "frame"])

    def test_crcs_match_the_published_ecp_frames(self):
        self.assertEqual(pn532.crc_a(ECP_VAS), bytes.fromhex("F6F1"))
        self.assertEqual(pn532.crc_b(ECP_VAS), bytes.fromhex("D73E"))
        self.assertEqual(pn532.crc_a(bytes.fromhex("6A01000002")), bytes.fromhex("E4D2"))


class ChipTestCase(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def chip(self, card=None):
        chip = Chip(card or Card({}))
        chip.set_field(True)
        return chip

    def phone(self, **config):
        return Phone.from_file(write_phone(self.folder.name, **config))

    def run_command(self, chip, hex_command):
        return chip.execute(bytes.fromhex(hex_command))

    def poll(self, chip):
        return self.run_command(chip, "4A0100")


class ChipCommandTests(ChipTestCase):
    def test_open_sequence(self):
        chip = Chip(Card({}))
        self.assertEqual(self.run_command(chip, "1401"), b"\x15")
        self.assertEqual(self.run_command(chip, "00006C69626E6663"), bytes.fromhex("0100") + b"libnfc")
        self.assertEqual(self.run_command(chip, "02"), bytes.fromhex("0332010607"))
        self.assertEqual(self.run_command(chip, "1214"), b"\x13")
        self.assertEqual(chip.power, "normal")

    def test_register_map_remembers_writes(self):
        chip = Chip(Card({}))
        self.assertEqual(self.run_command(chip, "0663026303633C"), bytes.fromhex("07808010"))
        self.assertEqual(self.run_command(chip, "08633D07630540"), b"\x09")
        self.assertEqual(self.run_command(chip, "06633D63056399"), bytes.fromhex("07074000"))

    def test_rf_configuration_switches_the_field(self):
        chip = Chip(Card({}))
        self.assertEqual(self.run_command(chip, "320101"), b"\x33")
        self.assertTrue(chip.field)
        self.assertEqual(self.run_command(chip, "3205FFFFFF"), b"\x33")
        self.assertEqual(chip.max_retries, [0xFF, 0xFF, 0xFF])
        self.run_command(chip, "320100")
        self.assertFalse(chip.field)
        self.assertEqual(self.run_command(chip, "16F0"), b"\x17\x00")
        self.assertEqual(chip.power, "powerdown")

    def test_syntax_errors(self):
        chip = self.chip()
        for command in ("3A", "", "4A0300", "4A0109", "3205FF", "0663", "086302", "00FF", "8C00"):
            with self.assertRaises(pn532.BadCommand, msg=command):
                self.run_command(chip, command)
        self.assertIn("3A", chip.unknown_commands)

    def test_general_status_and_card_presence_diagnose(self):
        chip = self.chip()
        self.assertEqual(self.run_command(chip, "04"), bytes.fromhex("0500000000"))
        self.assertEqual(self.run_command(chip, "0006"), bytes.fromhex("0101"))
        chip.tap()
        self.poll(chip)
        self.assertEqual(self.run_command(chip, "04"), bytes.fromhex("050000010100000000"))
        self.assertEqual(self.run_command(chip, "0006"), bytes.fromhex("0100"))


class PassiveTargetTests(ChipTestCase):
    def test_no_target_in_the_field(self):
        self.assertEqual(self.poll(self.chip()), bytes.fromhex("4B00"))

    def test_iso_dep_card_with_its_ats(self):
        chip = self.chip()
        chip.tap()
        uid = bytes.fromhex("04A1B2C3D4E5F6")
        self.assertEqual(self.poll(chip), bytes.fromhex("4B0101004420") + bytes([7]) + uid + DEFAULT_ATS)
        self.assertIsNotNone(chip.first_select_answer_ns)
        self.assertGreaterEqual(chip.first_select_answer_ns, chip.tap_ns)

    def test_four_byte_uid_card_says_so_in_its_atqa(self):
        chip = self.chip(Card({"uid": "04A1B2C3"}))
        chip.tap()
        self.assertEqual(self.poll(chip), bytes.fromhex("4B010100042004" "04A1B2C3" "0B787781024B4F4E411411"))

    def test_memory_tag_has_no_ats_reads_pages_and_ignores_apdus(self):
        chip = self.chip(Card(dict(BUILTIN_PROFILES["memory-ultralight"])))
        chip.tap()
        self.assertEqual(self.poll(chip), bytes.fromhex("4B0101004400") + bytes([7]) + bytes.fromhex("04A23C1A7F2D80"))
        pages = self.run_command(chip, "40013000")
        self.assertEqual(pages[:2], b"\x41\x00")
        self.assertEqual(pages[2:10], bytes.fromhex("04A23C") + bytes([0x88 ^ 0x04 ^ 0xA2 ^ 0x3C]) + bytes.fromhex("1A7F2D80"))
        self.assertEqual(len(pages), 18)
        self.assertEqual(self.run_command(chip, "40013010"), bytes.fromhex("4114"))  # NAK past page 15
        # An APDU (or any command an Ultralight lacks) gets no answer and sends the tag back to
        # idle, so it answers the next poll again.
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex()), bytes.fromhex("4101"))
        self.assertEqual(self.poll(chip)[1], 1)
        self.assertEqual(self.run_command(chip, "4260F832"), bytes.fromhex("4301"))  # EV1 GET_VERSION
        self.assertEqual(self.poll(chip)[1], 1)

    def test_phone_gets_a_new_random_uid_on_every_activation(self):
        chip = self.chip(self.phone())
        chip.tap()
        first = self.poll(chip)
        self.assertEqual(first[:7], bytes.fromhex("4B010100042004"))
        self.assertEqual(first[7], 0x08)
        self.assertEqual(first[11:], bytes.fromhex("0578807002"))
        uids = {first[7:11]}
        for _ in range(5):
            chip.set_field(False)
            chip.set_field(True)
            uids.add(self.poll(chip)[7:11])
        self.assertGreater(len(uids), 1)

    def test_activated_target_does_not_answer_again_until_the_field_drops(self):
        chip = self.chip()
        chip.tap()
        self.assertEqual(self.poll(chip)[1], 1)
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))
        self.run_command(chip, "320100")
        self.run_command(chip, "320101")
        self.assertEqual(self.poll(chip)[1], 1)

    def test_deselected_target_is_halted_until_the_field_drops_or_insel(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        self.assertEqual(self.run_command(chip, "4400"), bytes.fromhex("4500"))
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))
        self.assertEqual(self.run_command(chip, "5401"), bytes.fromhex("5500"))
        self.assertEqual(self.run_command(chip, "400100A4040007A000000004101000")[:2], b"\x41\x00")
        self.assertEqual(self.run_command(chip, "5200"), bytes.fromhex("5300"))
        self.assertEqual(self.run_command(chip, "5401"), bytes.fromhex("5527"))
        self.run_command(chip, "16F0")
        self.assertEqual(self.poll(chip)[1], 1)  # a frame wakes it, InListPassiveTarget turns the field on

    def test_removed_target_is_gone(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        chip.remove()
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex()), bytes.fromhex("4101"))
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))

    def test_other_modulations_find_nothing(self):
        chip = self.chip()
        chip.tap()
        for command in ("4A010100FFFF0100", "4A010200FFFF0100", "4A010300", "4A0104"):
            self.assertEqual(self.run_command(chip, command), bytes.fromhex("4B00"))
        self.assertEqual(self.poll(chip)[1], 1)

    def test_uid_given_by_the_host_must_match(self):
        chip = self.chip(Card({"uid": "04A1B2C3"}))
        chip.tap()
        self.assertEqual(self.run_command(chip, "4A010001020304"), bytes.fromhex("4B00"))
        self.assertEqual(self.run_command(chip, "4A010004A1B2C3")[1], 1)

    def test_without_automatic_rats_there_is_no_ats_until_the_host_sends_rats(self):
        chip = self.chip()
        chip.tap()
        self.run_command(chip, "1204")
        answer = self.poll(chip)
        self.assertEqual(len(answer), 6 + 1 + 7)
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex()), bytes.fromhex("4101"))
        self.assertEqual(self.run_command(chip, "4001E080"), bytes.fromhex("4100") + DEFAULT_ATS)
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())[-2:], b"\x90\x00")


class ExchangeTests(ChipTestCase):
    def test_apdu_answer_comes_after_status_00(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        answer = self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())
        self.assertEqual(answer[:2], b"\x41\x00")
        self.assertEqual(answer[2:], Card({}).answer(SELECT_MASTERCARD))
        self.assertEqual(chip.apdus, 1)
        self.assertIsNotNone(chip.last_apdu_ns)

    def test_no_target_gives_the_timeout_status(self):
        chip = self.chip()
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex()), bytes.fromhex("4101"))
        self.assertEqual(self.run_command(chip, "42B2"), bytes.fromhex("4301"))
        self.assertEqual(self.run_command(chip, "42"), bytes.fromhex("4301"))

    def test_long_answer_comes_in_mi_pieces(self):
        fci = bytes(range(256)) + bytes(100)
        chip = self.chip(Card({"applications": [{"aid": "A0000000041010", "fci": fci.hex()}]}))
        chip.tap()
        self.poll(chip)
        first = self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())
        self.assertEqual(first[:2], b"\x41\x40")
        self.assertEqual(len(first) - 2, pn532.MAX_EXCHANGE_DATA)
        rest = self.run_command(chip, "4001")
        self.assertEqual(rest[:2], b"\x41\x00")
        self.assertEqual(first[2:] + rest[2:], fci + b"\x90\x00")

    def test_host_chaining_is_joined(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        self.assertEqual(self.run_command(chip, "4041" + SELECT_MASTERCARD[:6].hex()), bytes.fromhex("4100"))
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD[6:].hex())[-2:], b"\x90\x00")

    def test_presence_check_r_nak_is_answered_by_an_ack_or_the_last_block(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        self.assertEqual(self.run_command(chip, "42B2"), bytes.fromhex("4300A3"))  # PICC block 1: R(ACK)
        answer = self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())
        self.assertEqual(self.run_command(chip, "42B2"), bytes.fromhex("430002") + answer[2:])  # re-transmission
        self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())
        self.assertEqual(self.run_command(chip, "42B2"), bytes.fromhex("4300A3"))
        chip.remove()
        self.assertEqual(self.run_command(chip, "42B2"), bytes.fromhex("4301"))

    def test_raw_iso_dep_blocks_and_deselect(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        answer = self.run_command(chip, "4202" + SELECT_MASTERCARD.hex())
        self.assertEqual(answer[:3], bytes.fromhex("430002"))
        self.assertEqual(answer[-2:], b"\x90\x00")
        self.assertEqual(self.run_command(chip, "42C2"), bytes.fromhex("4300C2"))
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))

    def test_raw_crc_handled_by_the_host(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        self.run_command(chip, "08630200630300")  # CRC off both ways
        block = bytes.fromhex("B2")
        self.assertEqual(self.run_command(chip, "42" + block.hex()), bytes.fromhex("4301"))  # no CRC: ignored
        answer = self.run_command(chip, "42" + (block + pn532.crc_a(block)).hex())
        self.assertEqual(answer, bytes.fromhex("4300A3") + pn532.crc_a(b"\xA3"))

    def test_memory_tag_presence_read(self):
        chip = self.chip(Card(dict(BUILTIN_PROFILES["memory-ultralight"])))
        chip.tap()
        self.poll(chip)
        self.assertEqual(len(self.run_command(chip, "42300F")), 2 + 16)
        self.assertEqual(self.run_command(chip, "423010"), bytes.fromhex("4301"))

    def test_stall_holds_the_exchange_until_removal(self):
        chip = self.chip()
        chip.tap()
        self.poll(chip)
        chip.stall_pending = True
        pending = self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())
        self.assertIsInstance(pending, Pending)
        self.assertIsNone(pending.due_ns)
        self.assertIsNone(pending.on_change())
        chip.remove()
        self.assertEqual(pending.on_change(), bytes.fromhex("4101"))
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex()), bytes.fromhex("4101"))

    def test_delay_answers_late_and_pull_after_removes(self):
        chip = self.chip()
        chip.delay_ns = 5_000_000
        chip.pull_after = 2
        chip.tap()
        self.poll(chip)
        pending = self.run_command(chip, "4001" + SELECT_MASTERCARD.hex())
        self.assertIsInstance(pending, Pending)
        self.assertEqual(pending.on_due()[:2], b"\x41\x00")
        self.assertIsNone(pending.on_change())
        self.assertEqual(self.run_command(chip, "4001" + SELECT_MASTERCARD.hex()), bytes.fromhex("4101"))
        self.assertFalse(chip.target.present)

    def test_auto_poll_answers_when_a_target_comes(self):
        chip = self.chip()
        pending = self.run_command(chip, "60FF022010")
        self.assertIsInstance(pending, Pending)
        self.assertIsNone(pending.due_ns)
        self.assertIsNone(pending.on_change())
        chip.tap()
        answer = pending.on_change()
        self.assertEqual(answer[:4], bytes.fromhex("61012017"))  # one target, type 20, 23 bytes of target data
        self.assertEqual(answer[4:], bytes.fromhex("01004420") + bytes([7]) + bytes.fromhex("04A1B2C3D4E5F6") + DEFAULT_ATS)
        chip.set_field(False)
        memory = self.chip(Card(dict(BUILTIN_PROFILES["memory-ultralight"])))
        memory.tap()
        self.assertEqual(self.run_command(memory, "6001012010")[:3], bytes.fromhex("610110"))
        finite = self.run_command(self.chip(), "6002032010")
        self.assertEqual(finite.on_due(), bytes.fromhex("6100"))

    def test_auto_poll_finds_a_requires_ecp_phone_as_a_payment_device(self):
        phone = self.phone(requires_ecp=True, ecp_cycles=2)
        chip = self.chip(phone)
        chip.tap()
        answer = self.run_command(chip, "60FF012010")  # no ECP can be sent while the chip polls
        self.assertEqual(answer[:3], bytes.fromhex("610120"))
        self.assertEqual((phone.mode, chip.silent_polls), ("payment", 1))


class EcpTests(ChipTestCase):
    def test_ecp_gets_the_timeout_status_and_is_recorded(self):
        chip = self.chip()
        self.assertEqual(self.run_command(chip, "42" + ECP_VAS.hex()), bytes.fromhex("4301"))
        self.assertEqual(len(chip.ecp_frames), 1)
        entry = chip.ecp_frames[0]
        self.assertEqual((entry["hex"], entry["crc_by_chip"], entry["framing"], entry["counted"]), ("6A01000000", True, "A", False))

    def test_requires_ecp_phone_answers_after_two_ecp_frames(self):
        chip = self.chip(self.phone(requires_ecp=True))
        chip.tap()
        self.run_command(chip, "42" + ECP_VAS.hex())
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))
        self.run_command(chip, "42" + ECP_VAS.hex())
        self.assertEqual(self.poll(chip)[1], 1)
        self.assertEqual(self.run_command(chip, "4001" + SELECT_VAS.hex())[-2:], b"\x90\x00")
        self.assertEqual(chip.silent_polls, 1)
        self.assertTrue(all(entry["counted"] for entry in chip.ecp_frames))

    def test_polled_without_ecp_it_answers_as_a_payment_device(self):
        chip = self.chip(self.phone(requires_ecp=True, ecp_cycles=2))
        chip.tap()
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))
        self.assertEqual(self.poll(chip)[1], 1)
        self.assertEqual(self.run_command(chip, "4001" + SELECT_VAS.hex()), bytes.fromhex("41006A82"))
        self.assertEqual(self.run_command(chip, "4001" + SELECT_PPSE.hex())[-2:], b"\x90\x00")

    def test_removal_resets_the_count_a_short_field_drop_does_not(self):
        phone = self.phone(requires_ecp=True)
        chip = self.chip(phone)
        chip.tap()
        self.run_command(chip, "42" + ECP_VAS.hex())
        chip.remove()
        chip.tap()
        self.run_command(chip, "42" + ECP_VAS.hex())
        self.assertEqual(self.poll(chip), bytes.fromhex("4B00"))
        self.assertEqual(phone.ecp_heard, 1)
        self.run_command(chip, "320100")
        self.run_command(chip, "320101")  # well under 300 ms
        self.run_command(chip, "42" + ECP_VAS.hex())
        self.assertEqual(self.poll(chip)[1], 1)

    def test_ecp_with_crc_from_the_host(self):
        chip = self.chip(self.phone(requires_ecp=True))
        chip.tap()
        self.run_command(chip, "08630200")  # TxMode: CRC off, the host appends it
        self.assertEqual(self.run_command(chip, "42" + (ECP_VAS + bytes.fromhex("F6F1")).hex()), bytes.fromhex("4301"))
        self.assertEqual(self.run_command(chip, "42" + (ECP_VAS + bytes.fromhex("0000")).hex()), bytes.fromhex("4301"))
        good, bad = chip.ecp_frames
        self.assertEqual((good["crc_by_chip"], good["crc_ok"], good["frame"], good["counted"]), (False, True, "6A01000000", True))
        self.assertEqual((bad["crc_ok"], bad["counted"]), (False, False))

    def test_activated_phone_does_not_count_ecp(self):
        phone = self.phone()
        chip = self.chip(phone)
        chip.tap()
        self.poll(chip)
        self.run_command(chip, "42" + ECP_VAS.hex())
        self.assertEqual(phone.ecp_heard, 0)


class EmulatorFrameTests(unittest.TestCase):
    """The wire side in process: ACK, answers, error frames, NACK, aborts (no pty)."""

    def setUp(self):
        self.emulator = Emulator(Card({}))
        self.sent = []
        self.emulator.send = self.sent.append
        self.stderr = io.StringIO()  # the emulator logs ignored frames and syntax errors there
        redirect = contextlib.redirect_stderr(self.stderr)
        redirect.__enter__()
        self.addCleanup(redirect.__exit__, None, None, None)

    def feed(self, data):
        self.sent.clear()
        self.emulator.host_bytes(data)
        return list(self.sent)

    def test_each_frame_is_acked_then_answered(self):
        self.assertEqual(self.feed(host_frame(b"\x02")), [pn532.ACK, build_frame(bytes.fromhex("D50332010607"))])

    def test_unknown_command_gets_the_error_frame(self):
        self.assertEqual(self.feed(host_frame(b"\x3A\x00")), [pn532.ACK, pn532.ERROR_FRAME])
        self.assertEqual(self.emulator.frames[-1]["kind"], "error")
        self.assertIn("command 3A is not emulated", self.stderr.getvalue())

    def test_bad_checksum_is_ignored_without_ack(self):
        frame = bytearray(host_frame(b"\x02"))
        frame[-2] ^= 1
        self.assertEqual(self.feed(bytes(frame)), [])
        self.assertEqual(self.emulator.frames[-1]["kind"], "bad")
        self.assertIn("bad data checksum", self.stderr.getvalue())

    def test_nack_repeats_the_last_answer(self):
        answer = self.feed(host_frame(b"\x02"))[1]
        self.assertEqual(self.feed(pn532.NACK), [answer])

    def test_ack_and_new_frames_abort_a_waiting_command(self):
        self.assertEqual(self.feed(host_frame(bytes.fromhex("60FF012010"))), [pn532.ACK])
        self.assertIsNotNone(self.emulator.chip.pending)
        self.assertEqual(self.feed(pn532.ACK), [])
        self.assertIsNone(self.emulator.chip.pending)
        self.feed(host_frame(bytes.fromhex("60FF012010")))
        self.assertEqual(self.feed(host_frame(b"\x02"))[0], pn532.ACK)
        self.assertIsNone(self.emulator.chip.pending)

    def test_tap_answers_a_waiting_auto_poll(self):
        self.feed(host_frame(bytes.fromhex("60FF012010")))
        self.sent.clear()
        self.assertEqual(self.emulator.handle("tap")["taps"], 1)
        self.emulator.check_pending()
        self.assertEqual(self.sent[0][5:8], bytes.fromhex("D56101"))

    def test_frames_record_and_clear(self):
        self.feed(host_frame(b"\x02"))
        frames = self.emulator.handle("frames")["frames"]
        self.assertEqual([(frame["dir"], frame["kind"], frame["hex"]) for frame in frames],
                         [("host", "command", "D402"), ("chip", "answer", "D50332010607")])
        self.assertEqual(self.emulator.handle("clear"), {"ok": True})
        self.assertEqual(self.emulator.handle("frames")["frames"], [])

    def test_unknown_control_command_lists_the_known_ones(self):
        reply = self.emulator.handle("dance")
        self.assertFalse(reply["ok"])
        self.assertIn("vanish", reply["error"])


class Spawned:
    """An emulator process in a temp dir: --link, --control, --ready-file, --record."""

    def __init__(self, test, *arguments):
        self.folder = tempfile.mkdtemp(prefix="pn532-")
        test.addCleanup(shutil.rmtree, self.folder, True)
        self.link = os.path.join(self.folder, "pn532")
        self.control = os.path.join(self.folder, "control.sock")
        self.ready = os.path.join(self.folder, "ready.json")
        self.record = os.path.join(self.folder, "frames.jsonl")
        self.log = open(os.path.join(self.folder, "emulator.log"), "w")
        test.addCleanup(self.log.close)
        self.process = subprocess.Popen(
            [sys.executable, EMULATOR, "--link", self.link, "--control", self.control, "--ready-file", self.ready,
             "--record", self.record, *arguments],
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        test.addCleanup(self.stop)
        line = self.read_line(10)
        test.assertTrue(line.startswith("ready link=%s " % self.link), line)
        with open(self.ready) as handle:
            self.info = json.load(handle)
        self.environment = dict(os.environ, LIBNFC_DEVICE="pn532_uart:" + self.link, LIBNFC_AUTO_SCAN="false")
        self.environment.pop("LIBNFC_DEFAULT_DEVICE", None)

    def read_line(self, seconds):
        ready, _, _ = select.select([self.process.stdout], [], [], seconds)
        if not ready:
            raise AssertionError("the emulator did not get ready in %d s" % seconds)
        return self.process.stdout.readline()

    def command(self, line):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(10)
            client.connect(self.control)
            client.sendall(line.encode() + b"\n")
            with client.makefile() as stream:
                return json.loads(stream.readline())

    def run(self, *command, trace=False):
        environment = dict(self.environment, LIBNFC_LOG_LEVEL="3") if trace else self.environment
        started = time.monotonic()
        result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=30)
        result.seconds = time.monotonic() - started
        return result

    def session(self, *steps):
        result = self.run(sys.executable, SESSION, "pn532_uart:" + self.link, *steps)
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        return {line["step"]: line for line in lines}, lines

    def stop(self):
        if self.process.poll() is None:
            try:
                self.command("quit")
            except OSError:
                self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process.stdout.close()


class TapEveryTests(unittest.TestCase):
    """--tap-every/--hold, the demo's tapping phone: the target comes and goes by itself."""

    def test_the_target_enters_and_leaves_the_field_on_its_own(self):
        emulator = Spawned(self, "--tap-every", "0.3", "--hold", "0.1")
        seen = set()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (len(seen) == 2 and emulator.command("stats")["taps"] >= 3):
            seen.add(emulator.command("stats")["present"])
            select.select([], [], [], 0.02)
        stats = emulator.command("stats")
        self.assertGreaterEqual(stats["taps"], 3)
        self.assertEqual(seen, {True, False})

    def test_a_hold_as_long_as_the_period_is_refused(self):
        result = subprocess.run([sys.executable, EMULATOR, "--tap-every", "1", "--hold", "1"], capture_output=True, text=True, timeout=30)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("--hold must be", result.stderr)


class SignalTests(unittest.TestCase):
    """Ctrl-C on scripts/demo: the emulator may get the terminal's SIGINT and then the demo's
    SIGTERM while it cleans up or while Python shuts down. It must end with status 0 and print no
    traceback (as it once did: "Exception ignored in: <module 'threading'>... SystemExit: 0", or
    killed by the second signal once Python had put the default handlers back)."""

    def test_sigint_then_a_stream_of_sigterms_ends_it_quietly_with_status_0(self):
        emulator = Spawned(self, "--tap-every", "0.3", "--hold", "0.1")
        emulator.process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 10
        while emulator.process.poll() is None and time.monotonic() < deadline:
            emulator.process.send_signal(signal.SIGTERM)
            time.sleep(0.0005)
        status = emulator.process.wait(timeout=1)
        with open(emulator.log.name) as handle:
            stderr = handle.read()
        self.assertNotIn("Traceback", stderr)
        self.assertEqual(status, 0, stderr)


@unittest.skipUnless(HAVE_LIBNFC, "nfc-list (libnfc-bin) and libnfc.so.6 are needed")
class LibnfcTests(unittest.TestCase):
    """The real libnfc 1.8 pn532_uart driver against the emulator."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def nfc_list(self, emulator, *arguments):
        result = emulator.run("nfc-list", *arguments, trace=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertNotIn("Timeout!", result.stderr)  # no receive timeout: every command answered
        self.assertNotIn("Application level error", result.stderr)
        return result

    def test_nfc_list_finds_the_iso_dep_card(self):
        emulator = Spawned(self, "--tap")
        result = self.nfc_list(emulator)
        self.assertIn("NFC device: user defined device opened", result.stdout)
        self.assertIn("1 ISO14443A passive target(s) found", result.stdout)
        self.assertIn("ATQA (SENS_RES): 00  44", result.stdout)
        self.assertIn("UID (NFCID1): 04  a1  b2  c3  d4  e5  f6", result.stdout)
        self.assertIn("SAK (SEL_RES): 20", result.stdout)
        self.assertIn("ATS: 78  77  81  02  4b  4f  4e  41  14  11", result.stdout)
        commands = [frame["hex"][:4] for frame in emulator.command("frames")["frames"] if frame["dir"] == "host" and frame["kind"] == "command"]
        self.assertEqual(commands[:4], ["D414", "D400", "D402", "D412"])
        for expected in ("D406", "D408", "D432", "D44A", "D444", "D442", "D452", "D416"):
            self.assertIn(expected, commands)
        stats = emulator.command("stats")
        self.assertEqual((stats["selects"], stats["unknown_commands"], stats["connected"]), (1, [], False))
        with open(emulator.record) as handle:
            recorded = [json.loads(line) for line in handle]
        self.assertEqual(recorded[0]["hex"], "D41401")
        self.assertLess(result.seconds, 5)

    def test_nfc_list_lists_a_memory_tag_with_sak_00(self):
        emulator = Spawned(self, "--profile", "memory-ultralight", "--tap")
        result = self.nfc_list(emulator)
        self.assertIn("ATQA (SENS_RES): 00  44", result.stdout)
        self.assertIn("UID (NFCID1): 04  a2  3c  1a  7f  2d  80", result.stdout)
        self.assertIn("SAK (SEL_RES): 00", result.stdout)
        self.assertNotIn("ATS:", result.stdout)

    @unittest.skipUnless(shutil.which("nfc-mfultralight"), "nfc-mfultralight (libnfc-bin) is needed")
    def test_nfc_mfultralight_reads_the_memory_tag(self):
        emulator = Spawned(self, "--profile", "memory-ultralight", "--tap")
        dump = os.path.join(self.folder.name, "dump.mfd")
        result = emulator.run("nfc-mfultralight", "r", dump)  # probes EV1 GET_VERSION, re-selects, reads
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("16 of 16 pages read", result.stdout)
        with open(dump, "rb") as handle:
            self.assertEqual(handle.read(8), bytes.fromhex("04A23C121A7F2D80"))

    def test_nfc_list_with_no_target(self):
        emulator = Spawned(self)
        result = self.nfc_list(emulator, "-v")
        self.assertIn("0 ISO14443A passive target(s) found", result.stdout)
        self.assertEqual(emulator.command("stats")["selects"], 0)

    def test_nfc_list_lists_a_phone_once(self):
        emulator = Spawned(self, "--phone", write_phone(self.folder.name), "--tap")
        result = self.nfc_list(emulator)
        self.assertIn("1 ISO14443A passive target(s) found", result.stdout)
        self.assertIn("ATQA (SENS_RES): 00  04", result.stdout)
        self.assertIn("UID (NFCID3): 08  ", result.stdout)  # libnfc's name for a random UID (08 first)
        self.assertIn("SAK (SEL_RES): 20", result.stdout)
        self.assertIn("ATS: 78  80  70  02", result.stdout)

    def test_apdus_presence_and_deselect_through_libnfc(self):
        emulator = Spawned(self, "--tap")
        steps, lines = emulator.session("select", "apdu:" + SELECT_MASTERCARD.hex(), "present", "deselect", "select", "field:off", "field:on", "select")
        self.assertEqual(lines[-1]["step"], "close")
        self.assertEqual(lines[2]["uid"], "04A1B2C3D4E5F6")
        self.assertEqual(steps["apdu:" + SELECT_MASTERCARD.hex()]["data"], Card({}).answer(SELECT_MASTERCARD).hex().upper())
        self.assertEqual(steps["present"]["result"], 0)
        self.assertEqual(steps["deselect"]["result"], 1)
        self.assertEqual([line["result"] for line in lines if line["step"] == "select"], [1, 0, 1])
        stats = emulator.command("stats")
        self.assertEqual((stats["apdus"], stats["selects"], stats["polls"]), (1, 2, 3))
        self.assertGreater(stats["last_apdu_ns"], stats["first_select_answer_ns"])

    def test_pulled_target_and_a_stalled_exchange(self):
        emulator = Spawned(self)
        emulator.command("pull-after 1")
        emulator.command("tap")
        steps, _ = emulator.session("select", "apdu:" + SELECT_MASTERCARD.hex(), "present")
        self.assertEqual(steps["apdu:" + SELECT_MASTERCARD.hex()]["result"], -20)  # NFC_ERFTRANS: status 01
        self.assertEqual(steps["present"]["result"], -10)  # NFC_ETGRELEASED
        emulator.command("tap")
        emulator.command("stall")
        session = subprocess.Popen([sys.executable, SESSION, "pn532_uart:" + emulator.link, "select", "apdu:" + SELECT_MASTERCARD.hex()],
                                   env=emulator.environment, stdout=subprocess.PIPE, text=True)
        self.addCleanup(session.stdout.close)
        self.addCleanup(lambda: session.poll() is None and session.kill())
        deadline = time.monotonic() + 10
        while not emulator.command("stats")["stalled"]:  # waits for the event, with a deadline
            self.assertLess(time.monotonic(), deadline, "the exchange never reached the emulator")
            select.select([], [], [], 0.01)
        self.assertIsNone(session.poll())
        self.assertEqual(emulator.command("stats")["pending"], "InDataExchange")
        emulator.command("remove")
        output, _ = session.communicate(timeout=10)
        apdu = [json.loads(line) for line in output.splitlines() if line.startswith('{"step": "apdu')][0]
        self.assertEqual(apdu["result"], -20)

    def test_requires_ecp_phone_through_libnfc(self):
        emulator = Spawned(self, "--phone", write_phone(self.folder.name), "--requires-ecp", "--tap")
        ecp = "ecp:" + ECP_VAS.hex()
        steps, lines = emulator.session("select", ecp, "select", ecp, "select", "apdu:" + SELECT_VAS.hex())
        self.assertEqual([line["result"] for line in lines if line["step"] == "select"], [0, 0, 1])
        self.assertEqual([line["result"] for line in lines if line["step"] == ecp], [-20, -20])
        self.assertEqual(steps["apdu:" + SELECT_VAS.hex()]["data"][-4:], "9000")
        stats = emulator.command("stats")
        self.assertEqual([frame["hex"] for frame in stats["ecp_frames"]], ["6A01000000", "6A01000000"])
        self.assertTrue(all(frame["crc_by_chip"] for frame in stats["ecp_frames"]))
        self.assertEqual((stats["ecp"]["mode"], stats["silent_polls"]), ("vas", 2))

    def test_requires_ecp_phone_polled_without_ecp_is_a_payment_device(self):
        emulator = Spawned(self, "--phone", write_phone(self.folder.name, requires_ecp=True, ecp_cycles=2), "--tap")
        steps, lines = emulator.session("select", "select", "apdu:" + SELECT_VAS.hex(), "apdu:" + SELECT_PPSE.hex())
        self.assertEqual([line["result"] for line in lines if line["step"] == "select"], [0, 1])
        self.assertEqual(steps["apdu:" + SELECT_VAS.hex()]["data"], "6A82")
        self.assertEqual(steps["apdu:" + SELECT_PPSE.hex()]["data"][-4:], "9000")
        self.assertEqual(emulator.command("stats")["ecp"]["mode"], "payment")

    def test_vanish_and_reappear(self):
        emulator = Spawned(self, "--tap")
        first = os.readlink(emulator.link)
        self.assertEqual(first, emulator.info["pty"])
        held = os.open(emulator.link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)  # a client with the port open
        self.addCleanup(os.close, held)
        self.assertTrue(emulator.command("stats")["connected"])
        self.assertEqual(emulator.command("vanish"), {"ok": True, "vanished": True})
        self.assertFalse(os.path.lexists(emulator.link))
        with self.assertRaises(OSError):
            if os.read(held, 1) == b"":  # a hung-up pty reads EOF on some kernels, EIO on others
                raise OSError("EOF")
        result = emulator.run("nfc-list")
        self.assertIn("Unable to open NFC device", result.stderr + result.stdout)
        reply = emulator.command("reappear")
        self.assertTrue(reply["ok"])
        self.assertEqual(os.readlink(emulator.link), reply["pty"])
        self.assertNotEqual(reply["pty"], first)  # the old pty is still held open above
        result = self.nfc_list(emulator)
        self.assertIn("UID (NFCID1): 04  a1  b2  c3  d4  e5  f6", result.stdout)
        self.assertEqual(emulator.command("reappear")["ok"], False)


if __name__ == "__main__":
    unittest.main()
