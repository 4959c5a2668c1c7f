"""Tests of the virtual card, in process: its ATRs, the memory tag's answers, and the `stall` and
`delay` line commands over a TCP connection from a stand-in for vpcd (no pcscd).

Run from the repository root: python3 -m unittest scripts/rig/test_virtual_card.py
"""

import argparse
import json
import os
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import card_model  # noqa: E402
import virtual_card  # noqa: E402
from card_model import Card  # noqa: E402
from virtual_card import Controller  # noqa: E402
from virtual_iphone import Phone  # noqa: E402

SELECT_MASTERCARD = bytes.fromhex("00A4040007A000000004101000")
GET_UID = bytes.fromhex("FFCA000000")
GET_ATS = bytes.fromhex("FFCA010000")
# Every socket wait in these tests ends: a hang is a failure after this many seconds.
DEADLINE_S = 5


class ATRTests(unittest.TestCase):
    def test_default_card_is_iso_dep_with_the_atr_of_its_real_historical_bytes(self):
        card = Card({})
        # pcsc-tools' smartcard_list.txt: "3B 86 80 01 4B 4F 4E 41 14 11 09 Mastercard paypass enabled credit card".
        self.assertEqual(card.atr.hex().upper(), "3B8680014B4F4E41141109")
        self.assertEqual(card.ats.hex().upper(), "0B787781024B4F4E411411")
        self.assertEqual(card.uid.hex().upper(), "04A1B2C3D4E5F6")

    def test_atr_from_ats_follows_pcsc_part_3(self):
        # smartcard_list.txt: "3B 8A 80 01 4A 43 4F 50 33 31 56 32 33 32 7A" (JCOP31, contactless).
        ats = bytes([0x0F, 0x78, 0x77, 0x81, 0x02]) + b"JCOP31V232"
        self.assertEqual(card_model.atr_from_ats(ats).hex().upper(), "3B8A80014A434F503331563233327A")
        # No interface bytes (T0 b5..b7 clear), no historical bytes.
        self.assertEqual(card_model.atr_from_ats(bytes([0x02, 0x05])).hex().upper(), "3B80800101")

    def test_tck_is_the_xor_of_t0_to_the_last_historical_byte(self):
        atr = Card({}).atr
        check = 0
        for byte in atr[1:]:
            check ^= byte
        self.assertEqual(check, 0)

    def test_bad_ats_is_refused(self):
        with self.assertRaises(ValueError):
            card_model.atr_from_ats(bytes.fromhex("0A7877"))  # TL says 10 bytes, 3 given
        with self.assertRaises(ValueError):
            card_model.atr_from_ats(bytes.fromhex("037081"))  # T0 announces TA1 TB1 TC1
        with self.assertRaises(ValueError):
            card_model.atr_from_ats(bytes([18, 0x00]) + bytes(16))  # 16 historical bytes
        with self.assertRaises(ValueError):
            Card({"kind": "contact"})

    def test_an_explicit_atr_replaces_the_derived_one(self):
        self.assertEqual(Card({"atr": "3B00"}).atr, bytes.fromhex("3B00"))

    def test_the_phone_is_iso_dep_without_historical_bytes(self):
        phone = Phone({"passes": []})
        self.assertEqual(phone.atr.hex().upper(), "3B80800101")
        self.assertEqual(Phone({"passes": []}, {"ats": card_model.CARD_ATS}).atr, Card({}).atr)


class MemoryTagTests(unittest.TestCase):
    def setUp(self):
        self.tag = Card(virtual_card.load_profile("memory-ultralight"))

    def test_memory_ultralight_has_the_pcsc_part_3_ultralight_atr(self):
        # smartcard_list.txt: "... 03 00 03 00 00 00 00 68 NXP Mifare Ultralight or UltralightC".
        self.assertEqual(self.tag.atr.hex().upper(), "3B8F8001804F0CA0000003060300030000000068")
        check = 0
        for byte in self.tag.atr[1:]:
            check ^= byte
        self.assertEqual(check, 0)
        self.assertIsNone(self.tag.ats)

    def test_only_the_uid_read_is_answered(self):
        self.assertEqual(self.tag.answer(GET_UID), bytes.fromhex("04A23C1A7F2D80") + b"\x90\x00")
        self.assertEqual(self.tag.answer(GET_ATS), b"\x6A\x81")
        self.assertEqual(self.tag.answer(SELECT_MASTERCARD), b"\x63\x00")
        self.assertEqual(self.tag.answer(bytes.fromhex("00C0000010")), b"\x63\x00")
        self.assertEqual(self.tag.answer(bytes.fromhex("0084000008")), b"\x63\x00")

    def test_a_profile_file_of_kind_memory(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump({"kind": "memory", "uid_supported": False}, handle)
        self.addCleanup(os.unlink, handle.name)
        tag = Card(virtual_card.load_profile(handle.name))
        self.assertEqual(tag.atr.hex().upper(), card_model.ULTRALIGHT_ATR)
        self.assertEqual(tag.answer(GET_UID), b"\x6A\x81")

    def test_no_profile_is_the_demo_card(self):
        self.assertEqual(virtual_card.load_profile(None), {})


class FakeVpcd:
    """What vpcd does, for one test: listens on TCP, and speaks its length-prefixed messages to
    the card that connects."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(DEADLINE_S)
        self.port = self.server.getsockname()[1]
        self.connection = None

    def accept(self):
        self.connection, _ = self.server.accept()
        self.connection.settimeout(DEADLINE_S)

    def send(self, payload):
        self.connection.sendall(struct.pack(">H", len(payload)) + payload)

    def receive(self, timeout=DEADLINE_S):
        """The card's next message; socket.timeout when none comes in `timeout` seconds; b"" once closed."""
        self.connection.settimeout(timeout)
        header = self.connection.recv(2, socket.MSG_WAITALL)
        if len(header) < 2:
            return b""
        (length,) = struct.unpack(">H", header)
        return self.connection.recv(length, socket.MSG_WAITALL)

    def close(self):
        if self.connection is not None:
            self.connection.close()
        self.server.close()


class TimingCommandTests(unittest.TestCase):
    def setUp(self):
        self.vpcd = FakeVpcd()
        self.addCleanup(self.vpcd.close)
        args = argparse.Namespace(host="127.0.0.1", port=self.vpcd.port, verbose=False)
        self.controller = Controller(args, Card({}))
        self.addCleanup(self.controller.remove)

    def tap(self):
        self.assertEqual(self.controller.handle("tap")["ok"], True)
        self.vpcd.accept()
        self.vpcd.send(b"\x04")  # get ATR
        self.assertEqual(self.vpcd.receive(), Card({}).atr)

    def test_stall_leaves_the_next_apdu_unanswered_until_removal(self):
        self.tap()
        self.assertEqual(self.controller.handle("stall"), {"ok": True, "stall": True})
        self.vpcd.send(GET_UID)
        with self.assertRaises(socket.timeout):
            self.vpcd.receive(timeout=0.5)
        self.assertTrue(self.controller.handle("stats")["last"]["stalled"])
        self.controller.handle("remove")
        self.assertEqual(self.vpcd.receive(), b"")  # closed, never answered

    def test_stall_before_a_tap_applies_to_that_taps_first_apdu_only(self):
        self.controller.handle("stall")
        self.tap()
        self.vpcd.send(GET_UID)
        with self.assertRaises(socket.timeout):
            self.vpcd.receive(timeout=0.3)
        self.controller.handle("remove")
        self.vpcd.connection.close()
        self.tap()
        self.vpcd.send(GET_UID)
        self.assertEqual(self.vpcd.receive(), bytes.fromhex("04A1B2C3D4E5F6") + b"\x90\x00")

    def test_delay_holds_every_answer_until_delay_0(self):
        self.assertEqual(self.controller.handle("delay 300"), {"ok": True, "delay_ms": 300})
        self.tap()
        for _ in range(2):
            started = time.monotonic()
            self.vpcd.send(GET_UID)
            self.assertEqual(self.vpcd.receive()[-2:], b"\x90\x00")
            self.assertGreaterEqual(time.monotonic() - started, 0.3)
        self.assertEqual(self.controller.handle("delay 0"), {"ok": True, "delay_ms": 0})
        started = time.monotonic()
        self.vpcd.send(GET_UID)
        self.assertEqual(self.vpcd.receive()[-2:], b"\x90\x00")
        self.assertLess(time.monotonic() - started, 0.3)

    def test_a_removal_ends_a_delayed_answer(self):
        self.controller.handle("delay 60000")
        self.tap()
        self.vpcd.send(GET_UID)
        started = time.monotonic()
        self.controller.handle("remove")
        self.assertEqual(self.vpcd.receive(), b"")
        self.assertLess(time.monotonic() - started, DEADLINE_S)

    def test_the_reader_answers_its_led_command_and_records_it(self):
        led = bytes.fromhex("FF0040A80401000101")
        self.tap()
        # As before: without `reader`, the card answers (6D00: not its instruction).
        self.vpcd.send(led)
        self.assertEqual(self.vpcd.receive(), b"\x6D\x00")
        self.assertEqual(self.controller.handle("reader acr122u"), {"ok": True, "reader": "acr122u"})
        self.vpcd.send(led)
        self.assertEqual(self.vpcd.receive(), b"\x90\x00")
        self.assertEqual(self.controller.handle("reader refuse")["ok"], True)
        self.vpcd.send(led)
        self.assertEqual(self.vpcd.receive(), b"\x63\x00")
        # Other APDUs are still the card's.
        self.vpcd.send(GET_UID)
        self.assertEqual(self.vpcd.receive(), bytes.fromhex("04A1B2C3D4E5F6") + b"\x90\x00")
        self.assertEqual(self.controller.handle("feedback"), {"ok": True, "commands": ["FF0040A80401000101"] * 2})
        with self.assertRaises(ValueError):
            self.controller.handle("reader acr38")

    def test_bad_delays_are_refused(self):
        with self.assertRaises(ValueError):
            self.controller.handle("delay -1")
        with self.assertRaises(ValueError):
            self.controller.handle("delay soon")
        with self.assertRaises(IndexError):
            self.controller.handle("delay")



class SignalTests(unittest.TestCase):
    """Ctrl-C on scripts/demo: the card may get the terminal's SIGINT, then the demo's SIGTERM,
    while it cleans up or while Python shuts down. It ends with status 0 and no traceback."""

    def test_sigint_then_a_stream_of_sigterms_ends_it_quietly_with_status_0(self):
        with tempfile.TemporaryDirectory() as folder:
            control = os.path.join(folder, "card.sock")
            with open(os.path.join(folder, "stderr"), "w+") as stderr:
                process = subprocess.Popen([sys.executable, virtual_card.__file__, "--control", control],
                                           stdout=subprocess.DEVNULL, stderr=stderr)
                self.addCleanup(process.kill)
                deadline = time.monotonic() + DEADLINE_S
                while not os.path.exists(control) and time.monotonic() < deadline:
                    time.sleep(0.01)
                self.assertTrue(os.path.exists(control), "the card made no control socket in %d s" % DEADLINE_S)
                process.send_signal(signal.SIGINT)
                while process.poll() is None and time.monotonic() < deadline:
                    process.send_signal(signal.SIGTERM)
                    time.sleep(0.0005)
                status = process.wait(timeout=1)
                stderr.seek(0)
                output = stderr.read()
        self.assertNotIn("Traceback", output)
        self.assertEqual(status, 0, output)


if __name__ == "__main__":
    unittest.main()
