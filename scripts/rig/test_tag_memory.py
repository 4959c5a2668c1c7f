"""Tests of the rigs' NFC Forum tags (tag_memory.py), as the virtual card (vpcd) and the emulated
PN532 (libnfc) serve them: the NDEF bytes against ndeflib (PyPI, an NDEF codec we did not write),
the NTAG215 layouts and their TLVs, the 16- and 4-byte page reads, the Type 4 files and their MLe,
and the hostile tags.

Run from the repository root: python3 -m unittest scripts/rig/test_tag_memory.py
"""

import argparse
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ndef  # noqa: E402  (ndeflib: scripts/install-deps installs it)

import tag_memory  # noqa: E402
from pn532_emulator import Chip  # noqa: E402
from card_model import BUILTIN_PROFILES, Card  # noqa: E402
from virtual_card import Controller, load_profile  # noqa: E402

SELECT_NDEF_APPLICATION = bytes.fromhex("00A4040007D276000085010100")
SELECT_CC = bytes.fromhex("00A4000C02E103")
SELECT_NDEF_FILE = bytes.fromhex("00A4000C02E104")
NTAG_PROFILES = ("ntag215-ndef", "ntag215-empty", "ntag215-lock-control", "ntag215-beyond-cc", "ntag215-tlv-loop")


def card(name, **changes):
    return Card(dict(load_profile(name), **changes))


def user_memory(memory, pages):
    """The bytes of `pages` pages from page 4, read 16 bytes (four pages) at a time."""
    out = b""
    for page in range(4, 4 + pages, 4):
        out += memory.read(page)
    return out[: pages * 4]


def walk_tlvs(data, limit):
    """The Type 2 TLVs in `data` (tag, length, value) up to the terminator or `limit` TLVs."""
    found, offset = [], 0
    while offset < len(data) and len(found) < limit:
        tag = data[offset]
        if tag == 0x00:
            offset += 1
            continue
        if tag == 0xFE:
            found.append((tag, 0, b""))
            break
        length = data[offset + 1]
        offset += 2
        if length == 0xFF:
            length = int.from_bytes(data[offset : offset + 2], "big")
            offset += 2
        found.append((tag, length, data[offset : offset + length]))
        offset += length
    return found


class NDEFBytesTests(unittest.TestCase):
    def test_the_sample_message_is_what_ndeflib_encodes_and_decodes(self):
        expected = b"".join(ndef.message_encoder([ndef.UriRecord(tag_memory.SAMPLE_URI), ndef.TextRecord(tag_memory.SAMPLE_TEXT, "en")]))
        self.assertEqual(tag_memory.sample_message(), expected)
        records = list(ndef.message_decoder(tag_memory.sample_message()))
        self.assertEqual(records[0].iri, "https://passtap.example/tag")
        self.assertEqual((records[1].text, records[1].language), ("Hello from PassTap", "en"))

    def test_empty_records_are_three_bytes_with_mb_on_the_first_and_me_on_the_last(self):
        data = tag_memory.empty_records(10_000)
        self.assertEqual(len(data), 30_000)
        self.assertEqual(data[:3] + data[-3:], bytes.fromhex("900000" "500000"))
        records = list(ndef.message_decoder(data))
        self.assertEqual(len(records), 10_000)
        self.assertTrue(all(record.type == "" for record in records))

    def test_records_with_an_id_are_what_ndeflib_encodes(self):
        # The virtual Android phone's Smart Tap records name themselves by id (virtual_android.py).
        records = [ndef.Record("urn:nfc:wkt:T", "ses", b"\x00session"), ndef.Record("urn:nfc:wkt:T", "", bytes(300)),
                   ndef.Record("urn:nfc:wkt:T", "reb", bytes(256))]
        ours = tag_memory.message([(tag_memory.TNF_WELL_KNOWN, b"T", b"\x00session", b"ses"),
                                   (tag_memory.TNF_WELL_KNOWN, b"T", bytes(300)),
                                   (tag_memory.TNF_WELL_KNOWN, b"T", bytes(256), b"reb")])
        self.assertEqual(ours, b"".join(ndef.message_encoder(records)))

    def test_a_long_payload_gets_a_four_byte_length(self):
        self.assertEqual(tag_memory.record(0x02, b"a/b", bytes(300))[:6], bytes.fromhex("C203") + (300).to_bytes(4, "big"))


class Type2LayoutTests(unittest.TestCase):
    def test_every_ntag215_has_135_pages_its_uid_bccs_and_a_capability_container(self):
        for name in NTAG_PROFILES:
            memory = card(name).memory
            self.assertEqual(memory.page_count, 135, name)
            first = memory.read(0)
            # NTAG21x datasheet: BCC0 = 88 ^ UID0 ^ UID1 ^ UID2, BCC1 = UID3 ^ UID4 ^ UID5 ^ UID6.
            self.assertEqual(first[3], 0x88 ^ 0x04 ^ 0xD1 ^ 0xE2, name)
            self.assertEqual(first[8], 0xF3 ^ 0xA4 ^ 0xB5 ^ 0x80, name)
            cc = first[12:16]
            self.assertEqual(cc, bytes.fromhex("E110FF00" if name == "ntag215-tlv-loop" else "E1103E00"), name)

    def test_the_ndef_tags_hold_the_sample_message_in_their_ndef_tlv(self):
        for name in ("ntag215-ndef", "ntag215-lock-control"):
            tlvs = walk_tlvs(user_memory(card(name).memory, 124), limit=10)
            ndef_tlvs = [value for tag, _, value in tlvs if tag == 0x03]
            self.assertEqual(ndef_tlvs, [tag_memory.sample_message()], name)
            self.assertEqual(tlvs[-1][0], 0xFE, name)
        tlvs = walk_tlvs(user_memory(card("ntag215-lock-control").memory, 124), limit=10)
        self.assertEqual(tlvs[0], (0x01, 3, bytes.fromhex("A00C34")))

    def test_the_empty_tag_has_an_ndef_tlv_of_length_0(self):
        self.assertEqual(walk_tlvs(user_memory(card("ntag215-empty").memory, 124), limit=10), [(0x03, 0, b""), (0xFE, 0, b"")])

    def test_the_beyond_cc_tag_announces_2000_bytes_where_the_cc_gives_496(self):
        memory = card("ntag215-beyond-cc").memory
        self.assertEqual(memory.read(3)[2] * 8, 496)
        self.assertEqual(memory.read(4)[:4], bytes.fromhex("03FF07D0"))

    def test_the_loop_tag_never_ends_and_has_no_ndef_tlv(self):
        memory = card("ntag215-tlv-loop").memory
        # Every page a one-byte page number can name answers, the last one too, rolling on.
        for page in (134, 135, 200, 255):
            self.assertEqual(len(memory.read(page)), 16)
        tlvs = walk_tlvs(user_memory(memory, 252), limit=10_000)
        self.assertGreater(len(tlvs), 150)
        self.assertEqual({tag for tag, _, _ in tlvs}, {0x01})

    def test_the_over_claiming_ultralight_rolls_over_inside_its_ndef_tlv(self):
        memory = card("ultralight-cc-too-large").memory
        self.assertEqual(memory.page_count, 16)
        self.assertEqual(memory.read(3)[:4], bytes.fromhex("E1103E00"))
        self.assertEqual(memory.read(4)[:2], bytes.fromhex("0331"))  # 49 bytes from byte 18: past 64
        self.assertEqual(memory.read(15)[4:], memory.read(0)[:12])
        self.assertIsNone(memory.read(16))

    def test_read_rolls_over_to_page_0_and_naks_past_the_last_page(self):
        memory = card("ntag215-ndef").memory
        self.assertEqual(memory.read(134)[4:], memory.read(0)[:12])
        self.assertIsNone(memory.read(135))
        self.assertIsNone(memory.read(255))

    def test_user_data_longer_than_an_ntag215_is_refused(self):
        with self.assertRaises(ValueError):
            tag_memory.ntag215_pages(bytes(505))


class VpcdPageReadTests(unittest.TestCase):
    def test_ff_b0_answers_sixteen_bytes_as_an_acr122u(self):
        tag = card("ntag215-ndef")
        self.assertEqual(tag.atr.hex().upper(), "3B8F8001804F0CA0000003060300030000000068")
        self.assertEqual(tag.answer(bytes.fromhex("FFB0000310")), tag.memory.read(3) + b"\x90\x00")
        self.assertEqual(tag.answer(bytes.fromhex("FFB0008710")), b"\x63\x00")  # page 135: the tag NAKs

    def test_a_four_byte_reader_answers_the_one_page(self):
        tag = card("ntag215-ndef", page_read_bytes=4)
        self.assertEqual(tag.answer(bytes.fromhex("FFB0000310")), bytes.fromhex("E1103E00") + b"\x90\x00")
        with self.assertRaises(ValueError):
            card("ntag215-ndef", page_read_bytes=8)

    def test_a_long_read_refusal_refuses_sixteen_bytes_only_on_the_last_pages(self):
        tag = card("ntag215-ndef", long_read_refusal="6700")
        self.assertEqual(tag.answer(bytes.fromhex("FFB0008310")), tag.memory.read(131) + b"\x90\x00")  # 131-134
        self.assertEqual(tag.answer(bytes.fromhex("FFB0008610")), b"\x67\x00")  # 134-137
        self.assertEqual(tag.answer(bytes.fromhex("FFB0008604")), tag.memory.read(134)[:4] + b"\x90\x00")
        self.assertEqual(tag.answer(bytes.fromhex("FFB0008704")), b"\x63\x00")  # page 135: the tag NAKs

    def test_a_smaller_le_gets_that_many_bytes(self):
        self.assertEqual(card("ntag215-ndef").answer(bytes.fromhex("FFB0000304")), bytes.fromhex("E1103E00") + b"\x90\x00")

    def test_the_classic_card_is_named_classic_1k_and_has_sak_08(self):
        classic = card("memory-classic")
        self.assertEqual(classic.atr[12:15], bytes.fromhex("030001"))
        check = 0
        for byte in classic.atr[1:]:
            check ^= byte
        self.assertEqual(check, 0)
        self.assertEqual(classic.sak, 0x08)

    def test_the_profile_command_swaps_the_card_between_taps_and_keeps_the_command_line_options(self):
        args = argparse.Namespace(host="127.0.0.1", port=1, verbose=False, no_uid=False, page_read_bytes=4)
        controller = Controller(args, Card({}))
        self.assertEqual(controller.handle("profile ntag215-empty"), {"ok": True, "profile": "ntag215-empty"})
        self.assertEqual(controller.card.kind, "memory")
        self.assertEqual(controller.card.page_read_bytes, 4)
        with self.assertRaises(OSError):  # accept_commands answers {"ok": false, "error": ...}
            controller.handle("profile /nonexistent/profile.json")

    def test_a_base_profile_is_changed_by_the_files_other_keys(self):
        import json
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump({"base": "ntag215-ndef", "page_read_bytes": 4}, handle)
        self.addCleanup(os.unlink, handle.name)
        profile = load_profile(handle.name)
        self.assertEqual((profile["kind"], profile["page_read_bytes"]), ("memory", 4))
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump({"base": "no-such-tag"}, handle)
        self.addCleanup(os.unlink, handle.name)
        with self.assertRaises(ValueError):
            load_profile(handle.name)


class Type4Tests(unittest.TestCase):
    def read_file(self, tag, select, mle):
        self.assertEqual(tag.answer(select), b"\x90\x00")
        head = tag.answer(bytes.fromhex("00B0000002"))
        self.assertEqual(head[-2:], b"\x90\x00")
        size = int.from_bytes(head[:2], "big")
        data, offset = b"", 2
        while offset < size + 2:
            chunk = min(mle, size + 2 - offset)
            answer = tag.answer(bytes([0x00, 0xB0, offset >> 8, offset & 0xFF, chunk & 0xFF]))
            self.assertEqual(answer[-2:], b"\x90\x00")
            data += answer[:-2]
            offset += chunk
        return size, data

    def test_the_type4_tag_has_its_cc_and_the_sample_message_in_its_ndef_file(self):
        tag = card("type4-ndef")
        tag.begin_tap()
        self.assertEqual(tag.answer(SELECT_NDEF_APPLICATION), b"\x90\x00")
        self.assertEqual(tag.answer(SELECT_CC), b"\x90\x00")
        cc = tag.answer(bytes.fromhex("00B000000F"))[:-2]
        # T4T 2.0: CCLEN 000F, version 20, MLe 00F6, MLc 00F6, NDEF File Control TLV 04 06 E104 size 00 00.
        self.assertEqual(cc, bytes.fromhex("000F2000F600F60406E104") + (len(tag_memory.sample_message()) + 2).to_bytes(2, "big") + b"\x00\x00")
        size, data = self.read_file(tag, SELECT_NDEF_FILE, 0xF6)
        self.assertEqual(data, tag_memory.sample_message())
        self.assertEqual(size, len(data))

    def test_files_are_selected_only_in_the_ndef_application(self):
        tag = card("type4-ndef")
        tag.begin_tap()
        self.assertEqual(tag.answer(SELECT_CC), b"\x6A\x82")
        self.assertEqual(tag.answer(bytes.fromhex("00B000000F")), b"\x69\x86")
        tag.answer(SELECT_NDEF_APPLICATION)
        self.assertEqual(tag.answer(bytes.fromhex("00A4000C02E105")), b"\x6A\x82")

    def test_a_read_over_mle_and_past_the_end_are_refused(self):
        tag = card("type4-ndef")
        tag.begin_tap()
        tag.answer(SELECT_NDEF_APPLICATION)
        tag.answer(SELECT_NDEF_FILE)
        self.assertEqual(tag.answer(bytes.fromhex("00B00000F7")), b"\x67\x00")  # 247 > MLe 246
        self.assertEqual(tag.answer(bytes.fromhex("00B0100001")), b"\x6B\x00")
        self.assertEqual(tag.status(), {"largest_read": 0xF7})

    def test_the_many_records_tag_holds_10000_empty_records(self):
        tag = card("type4-many-records")
        tag.begin_tap()
        tag.answer(SELECT_NDEF_APPLICATION)
        size, data = self.read_file(tag, SELECT_NDEF_FILE, 0xFF)
        self.assertEqual(size, 30_000)
        self.assertEqual(len(list(ndef.message_decoder(data))), 10_000)

    def test_the_demo_card_still_answers_a_file_select_with_6d00(self):
        demo = Card({})
        demo.answer(SELECT_NDEF_APPLICATION)
        self.assertEqual(demo.answer(SELECT_CC), b"\x6D\x00")


class PN532ReadTests(unittest.TestCase):
    def chip(self, name):
        chip = Chip(Card(dict(BUILTIN_PROFILES[name])))
        chip.set_field(True)
        chip.tap()
        return chip

    def test_the_ntag_answers_read_with_its_pages_and_naks_past_the_last(self):
        chip = self.chip("ntag215-ndef")
        target = chip.execute(bytes.fromhex("4A0100"))
        self.assertEqual(target[:6], bytes.fromhex("4B0101004400"))  # ATQA 0044, SAK 00
        self.assertEqual(chip.execute(bytes.fromhex("40013003")), b"\x41\x00" + chip.card.memory.read(3))
        self.assertEqual(chip.execute(bytes.fromhex("40013087")), bytes.fromhex("4114"))

    def test_the_classic_answers_the_poll_with_sak_08(self):
        chip = self.chip("memory-classic")
        self.assertEqual(chip.execute(bytes.fromhex("4A0100"))[:6], bytes.fromhex("4B0101000408"))

    def test_stall_holds_a_read_until_the_tag_leaves(self):
        chip = self.chip("ntag215-ndef")
        chip.execute(bytes.fromhex("4A0100"))
        chip.stall_pending = True
        pending = chip.execute(bytes.fromhex("40013003"))
        self.assertFalse(isinstance(pending, bytes), "the stalled READ was answered")
        self.assertTrue(chip.stalled)


if __name__ == "__main__":
    unittest.main()
