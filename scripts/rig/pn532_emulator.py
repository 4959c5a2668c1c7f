#!/usr/bin/env python3
"""PassTap's emulated NXP PN532: the PN532 UART protocol on a pseudo-terminal, for libnfc's real
pn532_uart driver, with virtual_card.py's card (or virtual_iphone.py's or virtual_android.py's phone) as the RF target.

One card model, two transports: virtual_card.py taps vsmartcard-vpcd over TCP; this program is a
PN532 that libnfc opens as `pn532_uart:LINK`. It answers every command libnfc 1.8 sends at once
(no artificial delays, nothing left unanswered unless asked), so libnfc never waits for a timeout.

Usage:
  pn532_emulator.py --link /tmp/pn532 [--control SOCK] [--record FILE] [--ready-file PATH] [-v]
                    [--profile NAME|FILE] [--no-uid] [--phone FILE [--requires-ecp] [--ecp-cycles N]]
                    [--tap]
  LIBNFC_DEVICE=pn532_uart:/tmp/pn532 LIBNFC_AUTO_SCAN=false nfc-list

  --link PATH        symlink PATH -> the pty slave (replaced atomically; removed at exit)
  --control SOCK     Unix socket for line commands (below)
  --record FILE      append every frame as a JSON line {"t_ns", "dir", "kind", "hex"}
  --ready-file PATH  written (JSON: link, pty, control, pid) once the pty, link and socket exist;
                     a line "ready link=... pty=... control=..." is also printed on stdout
  --tap              start with the target in the field
  --tap-every SEC [--hold SEC]   the target enters the field every SEC seconds and leaves HOLD
                     (1) seconds later: the demo's tapping phone
  --profile, --no-uid, --phone: as virtual_card.py; --requires-ecp / --ecp-cycles N override the
                     phone file's "requires_ecp" / "ecp_cycles"

Line commands (each answered with one JSON line {"ok": true, ...} or {"ok": false, "error": ...}):
  tap               the target enters the field (again, if it was there): {"taps", "tap_ns"}
  remove            the target leaves the field
  vanish            the reader is unplugged: pty master and slave closed, link removed
  reappear          plugged in again: a new pty (power-on state) and the link pointing at it
  stall             the next InDataExchange is not answered until `remove` (then status 01,
                    timeout) or `quit`
  delay MS          answer every exchange with the target MS ms late (`delay 0`: on time)
  pull-after N      on the next tap, the target leaves the field on its Nth InDataExchange
                    (answered with status 01, timeout)
  garble [N]        the next N (1) chip answers go out with a bad data checksum, as a line glitch
                    would corrupt them (libnfc: NFC_EIO, "Data checksum mismatch")
  frames            {"frames": [{"t_ns", "dir", "kind", "hex"}, ...]} since start or `clear`
  clear             forget the recorded frames and ECP frames
  profile NAME      with the target out of the field: the next taps are the card NAME (a built-in
                    profile of virtual_card.py, e.g. ntag215-ndef, or a profile file)
  stats             counters and CLOCK_MONOTONIC ns timings (see the README)
  quit              exit
  anything else goes to the card or phone (e.g. the phone's misbehave, apdus, requires-ecp).

Frames are recorded from the host's side of the wire: "host" frames are PN532 commands starting
with D4, "chip" frames are answers starting with D5; "kind" is command / answer / ack / nack (from
the host) / error (the chip's syntax-error frame) / bad (a host frame with a broken checksum,
which the chip ignores without ACK, as the PN532 does). The chip's own ACKs are not recorded.

What it answers (PN532 user manual command codes; libnfc-notes.md lists what libnfc sends):
  00 Diagnose (00 echo, 01/02/07 self tests, 06 card presence), 02 GetFirmwareVersion -> 32 01 06 07
  (PN532 v1.6, ISO 14443A/B + 18092), 04 GetGeneralStatus, 06 ReadRegister / 08 WriteRegister (a
  register map that remembers writes), 0C/0E GPIO, 10 SetSerialBaudRate, 12 SetParameters,
  14 SAMConfiguration, 16 PowerDown (field off), 32 RFConfiguration (item 01 switches the field),
  4A InListPassiveTarget (106 A: the target; FeliCa, B, Jewel: none), 40 InDataExchange (a memory
  tag: READ 30 page, 16 bytes, status 14 past its last page; the NTAG215s of tag_memory.py too),
  42 InCommunicateThru, 44 InDeselect, 52 InRelease, 54 InSelect, 60 InAutoPoll, 56 InJumpForDEP
  (no DEP target). Anything else: the syntax-error frame 00 00 FF 01 FF 7F 81 00, logged.
Target behaviour: ISO 14443-3 states. A target in the field answers a poll (REQA) when idle; once
activated it does not, until the field goes off. InDeselect / InRelease halt it (S(DESELECT) or
HLTA): a halted target answers no poll either until the field goes off (InSelect wakes it), as a
real card does, which is also what keeps nfc-list's listing loop from finding a phone (a new
random UID per activation) sixteen times.
"""

import argparse
import json
import os
import select
import socket
import sys
import time
import tty

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from card_model import Card  # noqa: E402
from virtual_card import exit_on_signals, load_phone, load_profile  # noqa: E402

ACK = bytes.fromhex("0000FF00FF00")
NACK = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")  # application-level (syntax) error
HOST_TFI = 0xD4
CHIP_TFI = 0xD5
FIRMWARE = bytes.fromhex("32010607")  # IC PN532, version 1.6, supports ISO 14443A, 14443B, 18092

# PN532 status byte values (user manual §7.1) used here.
OK = 0x00
TIMEOUT = 0x01  # the target did not answer
MIFARE_ERROR = 0x14  # a MIFARE / Type 2 tag answered NAK (READ past its last page)
BAD_CONTEXT = 0x27  # command not acceptable in the current context (e.g. no such target)

MAX_EXCHANGE_DATA = 262  # the PN532's InDataExchange buffer; longer answers come in MI pieces
POLL_PERIOD_NS = 150_000_000  # InAutoPoll's Period unit
MAX_RECORDED_FRAMES = 100_000  # the oldest are dropped past these (a daemon polls for hours)
MAX_RECORDED_ECP = 10_000
MAX_RECORDED_UNKNOWN = 100

REG_TX_MODE = 0x6302
REG_RX_MODE = 0x6303
REG_TX_CONTROL = 0x6304
REG_CONTROL = 0x633C
REG_BIT_FRAMING = 0x633D
CRC_ENABLE = 0x80
# Power-on values of the registers libnfc reads; every other register reads 00 until written.
# TxMode/RxMode have CRC on, as libnfc assumes (its bCrc starts true and it never writes them).
DEFAULT_REGISTERS = {
    0x6301: 0x3F,  # Mode
    REG_TX_MODE: 0x80,
    REG_RX_MODE: 0x80,
    REG_TX_CONTROL: 0x80,  # antenna drivers off (field off)
    0x6305: 0x00,  # TxAuto
    0x630D: 0x00,  # ManualRCV (parity on)
    0x6336: 0x00,  # Error
    0x6338: 0x00,  # Status2 (Crypto1 off)
    REG_CONTROL: 0x10,  # Initiator
    REG_BIT_FRAMING: 0x00,
    0x633E: 0x80,  # Coll
}
COMMAND_NAMES = {
    0x00: "Diagnose", 0x02: "GetFirmwareVersion", 0x04: "GetGeneralStatus", 0x06: "ReadRegister",
    0x08: "WriteRegister", 0x0C: "ReadGPIO", 0x0E: "WriteGPIO", 0x10: "SetSerialBaudRate",
    0x12: "SetParameters", 0x14: "SAMConfiguration", 0x16: "PowerDown", 0x32: "RFConfiguration",
    0x40: "InDataExchange", 0x42: "InCommunicateThru", 0x44: "InDeselect", 0x4A: "InListPassiveTarget",
    0x52: "InRelease", 0x54: "InSelect", 0x56: "InJumpForDEP", 0x60: "InAutoPoll",
}


def log(verbose, *parts):
    if verbose:
        print("pn532_emulator:", *parts, file=sys.stderr, flush=True)


# --- frames ------------------------------------------------------------------------------------


def checksum(data):
    """The byte that makes `data` plus itself sum to 0 mod 256 (LCS, DCS)."""
    return -sum(data) & 0xFF


def build_frame(payload):
    """A PN532 information frame around `payload` (TFI first): normal up to 255 bytes, else extended."""
    length = len(payload)
    if length <= 255:
        header = bytes([0x00, 0x00, 0xFF, length, -length & 0xFF])
    else:
        header = bytes([0x00, 0x00, 0xFF, 0xFF, 0xFF, length >> 8, length & 0xFF, checksum([length >> 8, length & 0xFF])])
    return header + payload + bytes([checksum(payload), 0x00])


class FrameParser:
    """Splits the host's byte stream into frames. Bytes before a start code (the wake-up 55 55 00
    00..., preambles, postambles) are skipped. `feed` returns events: ("ack", raw), ("nack", raw),
    ("frame", payload from the TFI on), ("bad", raw, reason) for a checksum or TFI error. A frame
    left incomplete for STALE_NS (a client that died mid-write) is dropped, so that it cannot
    swallow the next client's frames; after a bad checksum the search goes on just past the
    start code for the same reason."""

    STALE_NS = 100_000_000  # libnfc writes each frame with one write()

    def __init__(self):
        self.buffer = bytearray()
        self.waiting_since = None

    def feed(self, data, now_ns=None):
        now_ns = time.monotonic_ns() if now_ns is None else now_ns
        if self.buffer and self.waiting_since is not None and now_ns - self.waiting_since > self.STALE_NS:
            self.buffer.clear()
        self.buffer += data
        events = self.split()
        self.waiting_since = now_ns if self.buffer else None
        return events

    def split(self):
        events = []
        buf = self.buffer
        while True:
            start = buf.find(b"\x00\xFF")
            if start < 0:
                del buf[: max(len(buf) - 1, 0)]  # keep a last 00: it may begin a start code
                return events
            del buf[:start]
            if len(buf) < 4:
                return events
            if buf[2:4] == b"\x00\xFF":
                events.append(("ack", bytes(buf[:4])))
                del buf[:4]
                continue
            if buf[2:4] == b"\xFF\x00":
                events.append(("nack", bytes(buf[:4])))
                del buf[:4]
                continue
            if buf[2:4] == b"\xFF\xFF":
                if len(buf) < 7:
                    return events
                length, body = buf[4] << 8 | buf[5], 7
                length_ok = (buf[4] + buf[5] + buf[6]) & 0xFF == 0
            else:
                length, body = buf[2], 4
                length_ok = (buf[2] + buf[3]) & 0xFF == 0
            if not length_ok:
                events.append(("bad", bytes(buf[:body]), "length checksum"))
                del buf[:2]
                continue
            end = body + length + 1
            if len(buf) < end:
                return events
            raw = bytes(buf[:end])
            payload = raw[body : body + length]
            del buf[:end]
            if not payload or (sum(payload) + raw[-1]) & 0xFF:
                events.append(("bad", raw, "data checksum"))
                buf[:0] = raw[2:]  # look for a start code inside it
            elif payload[0] != HOST_TFI:
                events.append(("bad", raw, "TFI %02X" % payload[0]))
            else:
                events.append(("frame", payload))


def crc16(data, preset, final_xor):
    crc = preset
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    crc ^= final_xor
    return bytes([crc & 0xFF, crc >> 8])


def crc_a(data):
    """ISO 14443-3 CRC_A (preset 6363, LSB first)."""
    return crc16(data, 0x6363, 0)


def crc_b(data):
    """ISO 14443-3 CRC_B (preset FFFF, complemented, LSB first)."""
    return crc16(data, 0xFFFF, 0xFFFF)


class BadCommand(Exception):
    """A command the chip answers with its syntax-error frame."""


class Pending:
    """A command the chip is still working on: answered at `due_ns` (None: never) with
    `on_due()`, or earlier when `on_change()` (called after taps, removals, field changes)
    returns an answer. A new host frame or a host ACK aborts it."""

    def __init__(self, command, due_ns, on_due=None, on_change=None):
        self.command = command
        self.due_ns = due_ns
        self.on_due = on_due
        self.on_change = on_change


# --- the RF target -----------------------------------------------------------------------------


class Target:
    """The card or phone as the PN532 sees it over ISO 14443 A: present or not, and its state
    (idle: answers a poll; active: selected; halt: deselected, answers no poll until the field
    goes off). A phone gets a fresh random UID (08 + 3 bytes) on every activation."""

    def __init__(self, card):
        self.card = card
        self.is_phone = hasattr(card, "hear_ecp")
        self.is_memory = card.kind == "memory"
        self.present = False
        self.state = "idle"
        self.listed = False  # the PN532 holds it as target 1 (until InRelease or field off)
        self.layer4 = False  # ISO-DEP activated (RATS done)
        self.uid = card.uid
        self.block = 1  # the PICC's ISO-DEP block number
        self.last_block = None
        self.chained = b""  # I-block chaining from the host, raw path

    def reset(self):
        """Power lost (field off, removed): back to idle, forgotten by the chip."""
        self.state = "idle"
        self.listed = False
        self.layer4 = False
        self.last_block = None
        self.chained = b""

    def uid_for_activation(self):
        if self.is_phone:
            return b"\x08" + os.urandom(3)
        return self.card.uid

    def atqa(self):
        """SENS_RES as the PN532 reports it (MSB first): UID size bits from the UID length."""
        size = len(self.uid)
        return bytes([0x00, 0x04 if size <= 4 else 0x44 if size <= 7 else 0x84])

    def sak(self):
        return self.card.sak if self.is_memory else 0x20

    def target_data(self):
        """Tg, SENS_RES, SEL_RES, NFCID length, NFCID [, ATS with its TL, once RATS is done]."""
        data = bytes([0x01]) + self.atqa() + bytes([self.sak(), len(self.uid)]) + self.uid
        return data + self.card.ats if self.layer4 else data

    def activate(self, uid, rats):
        self.uid = uid
        self.state = "active"
        self.listed = True
        self.layer4 = rats and not self.is_memory
        self.block = 1
        self.last_block = None
        self.chained = b""
        self.card.begin_tap()

    def read_pages(self, page):
        """Type 2 READ: 4 pages from `page` (rolling over), or None (NAK) past the last page
        (the card's memory, tag_memory.Type2Memory: an Ultralight's 16 pages, an NTAG215's 135)."""
        return self.card.memory.read(page)

    def i_block_answer(self, answer, cid=b""):
        """The PICC toggles its block number on each I-block and answers with it; the block is
        kept for a re-transmission (R-block rules)."""
        self.block ^= 1
        self.last_block = bytes([0x02 | self.block | (0x08 if cid else 0)]) + cid + answer
        return self.last_block

    def raw(self, frame):
        """A raw frame (no CRC) from InCommunicateThru: the target's raw answer, or None (silence)."""
        if self.state != "active":
            return None
        if self.is_memory:
            if len(frame) == 2 and frame[0] == 0x30:
                return self.read_pages(frame[1])
            # HLTA halts it; anything else it does not support (an APDU, an EV1 GET_VERSION)
            # sends it back to idle without an answer, as a MIFARE Ultralight (MF0ICU1) does:
            # nfc-mfultralight re-selects the tag after its GET_VERSION probe for that reason.
            self.state = "halt" if frame[:1] == b"\x50" else "idle"
            return None
        if not self.layer4:
            if len(frame) == 2 and frame[0] == 0xE0:  # RATS
                self.layer4 = True
                return self.card.ats
            return None
        return self.iso_dep_block(frame)

    def iso_dep_block(self, frame):
        """ISO 14443-4 blocks sent by hand (ISO 14443-4 §7.5.4 rules): I-blocks, R(ACK/NAK) -
        libnfc's presence check sends R(NAK) B2 - and S(DESELECT)."""
        pcb = frame[0]
        cid = frame[1:2] if pcb & 0x08 else b""
        if pcb & 0x08 and not cid:
            return None
        if pcb & 0xE2 == 0x02:  # I-block
            start = 1 + len(cid) + (1 if pcb & 0x04 else 0)  # NAD
            self.chained += frame[start:]
            if pcb & 0x10:  # chaining: acknowledge, wait for the rest
                self.block ^= 1
                return bytes([0xA2 | self.block | (0x08 if cid else 0)]) + cid
            apdu, self.chained = self.chained, b""
            return self.i_block_answer(self.card.answer(apdu), cid)
        if pcb & 0xE6 == 0xA2:  # R-block
            same = pcb & 0x01 == self.block
            ack = bytes([0xA2 | self.block | (0x08 if cid else 0)]) + cid
            if same:
                return self.last_block if self.last_block is not None else ack  # rule 11
            return ack if pcb & 0x10 else None  # rule 12: R(NAK) -> R(ACK)
        if pcb & 0xF7 == 0xC2:  # S(DESELECT)
            self.state = "halt"
            return frame[: 1 + len(cid)]
        return None


# --- the chip ----------------------------------------------------------------------------------


class Chip:
    """The PN532: command frames in, answers out, and the state between them."""

    def __init__(self, card, verbose=False, clock=time.monotonic_ns):
        self.card = card
        self.verbose = verbose
        self.clock = clock
        self.target = Target(card)
        self.taps = 0
        self.tap_ns = None
        self.first_select_answer_ns = None
        self.first_apdu_ns = None
        self.last_apdu_ns = None
        self.apdus = 0
        self.tap_apdus = 0
        self.selects = 0
        self.polls = 0
        self.silent_polls = 0  # polls a requires_ecp phone in the field did not answer
        self.ecp_frames = []
        self.ecp_total = 0
        self.unknown_commands = []
        self.stall_pending = False
        self.stalled = False
        self.delay_ns = 0
        self.pull_after = None
        self.tap_pull_after = None
        self.power_on()

    def power_on(self):
        """Power-on state (start, or plugged in again): registers, field off, nothing listed."""
        if getattr(self, "field", False):
            self.set_field(False)
        self.registers = dict(DEFAULT_REGISTERS)
        self.parameters = 0x14  # AutomaticATR_RES and AutomaticRATS
        self.field = False
        self.field_changed_ns = None
        self.power = "lowvbat"
        self.sam_mode = 0x01
        self.max_retries = [0xFF, 0x01, 0xFF]
        self.rf_items = {}
        self.gpio = [0xFF, 0xFF, 0x00]
        self.pending = None
        self.host_chain = b""
        self.answer_rest = b""
        self.target.reset()

    # --- target and field ---

    def tap(self):
        if self.target.present:
            self.remove()
        self.target.present = True
        self.target.reset()
        self.taps += 1
        self.tap_ns = self.clock()
        self.first_select_answer_ns = None
        self.first_apdu_ns = None
        self.tap_apdus = 0
        self.tap_pull_after, self.pull_after = self.pull_after, None
        if self.target.is_phone:
            self.card.enter_field()

    def remove(self):
        if not self.target.present:
            return
        self.target.present = False
        self.target.reset()
        self.stalled = False
        if self.target.is_phone:
            self.card.leave_field()

    def set_field(self, on):
        if on == self.field:
            return
        now = self.clock()
        self.field = on
        self.field_changed_ns = now
        if on:
            self.registers[REG_TX_CONTROL] |= 0x03
        else:
            self.registers[REG_TX_CONTROL] &= ~0x03 & 0xFF
            self.target.reset()
            self.host_chain = b""
            self.answer_rest = b""
        if self.target.present and self.target.is_phone:
            (self.card.field_on if on else self.card.field_off)(now)

    def powered_target(self):
        """The target, when it is in the field and the field is on."""
        return self.target if self.target.present and self.field else None

    def active_target(self):
        target = self.powered_target()
        return target if target is not None and target.state == "active" else None

    # --- dispatch ---

    def execute(self, data):
        """A host command (the bytes after D4): the answer after D5 (command code + 1 first),
        a Pending, or BadCommand raised for the syntax-error frame."""
        if not data:
            raise BadCommand("empty frame")
        command, args = data[0], data[1:]
        if self.power != "normal":
            self.power = "normal"  # any frame wakes it (HSU wake-up)
        if command != 0x40:
            self.host_chain = b""
            self.answer_rest = b""
        handler = self.handlers().get(command)
        if handler is None:
            self.unknown_commands = (self.unknown_commands + [bytes(data).hex().upper()])[-MAX_RECORDED_UNKNOWN:]
            raise BadCommand("command %02X is not emulated" % command)
        answer = handler(args)
        if isinstance(answer, Pending):
            return answer
        return bytes([command + 1]) + bytes(answer)

    def handlers(self):
        return {
            0x00: self.diagnose, 0x02: self.get_firmware_version, 0x04: self.get_general_status,
            0x06: self.read_register, 0x08: self.write_register, 0x0C: self.read_gpio, 0x0E: self.write_gpio,
            0x10: self.set_serial_baud_rate, 0x12: self.set_parameters, 0x14: self.sam_configuration,
            0x16: self.power_down, 0x32: self.rf_configuration, 0x40: self.in_data_exchange,
            0x42: self.in_communicate_thru, 0x44: self.in_deselect, 0x4A: self.in_list_passive_target,
            0x52: self.in_release, 0x54: self.in_select, 0x56: self.in_jump_for_dep, 0x60: self.in_auto_poll,
        }

    # --- miscellaneous commands ---

    def diagnose(self, args):
        if not args:
            raise BadCommand("Diagnose without NumTst")
        test = args[0]
        if test == 0x00:  # communication line test: echo
            return args
        if test in (0x01, 0x02, 0x07):  # ROM, RAM, antenna self tests: OK
            return [OK]
        if test == 0x06:  # attention request / card presence
            return [OK if self.active_target() is not None else TIMEOUT]
        raise BadCommand("Diagnose test %02X is not emulated" % test)

    def get_firmware_version(self, args):
        return FIRMWARE

    def get_general_status(self, args):
        target = self.active_target()
        targets = [0x01, 0x01, 0x00, 0x00, 0x00] if target is not None else [0x00]  # NbTg [Tg BrRx BrTx Type]
        return [0x00, 0x00] + targets + [0x00]  # Err, Field (external), ..., SAM status

    def read_register(self, args):
        if not args or len(args) % 2:
            raise BadCommand("ReadRegister takes address pairs")
        return [self.registers.get(args[i] << 8 | args[i + 1], 0x00) for i in range(0, len(args), 2)]

    def write_register(self, args):
        if not args or len(args) % 3:
            raise BadCommand("WriteRegister takes address, value triples")
        for i in range(0, len(args), 3):
            address, value = args[i] << 8 | args[i + 1], args[i + 2]
            self.registers[address] = value
            if address == REG_TX_CONTROL:
                self.set_field(value & 0x03 != 0)
        return []

    def read_gpio(self, args):
        return self.gpio

    def write_gpio(self, args):
        if len(args) != 2:
            raise BadCommand("WriteGPIO takes P3 and P7")
        for index, value in enumerate(args):
            if value & 0x80:
                self.gpio[index] = value & 0x7F
        return []

    def set_serial_baud_rate(self, args):
        if len(args) != 1 or args[0] > 0x08:
            raise BadCommand("SetSerialBaudRate takes a rate 00..08")
        return []  # a pty has no baud rate

    def set_parameters(self, args):
        if len(args) != 1:
            raise BadCommand("SetParameters takes one byte")
        self.parameters = args[0]
        return []

    def sam_configuration(self, args):
        if not 1 <= len(args) <= 3 or not 1 <= args[0] <= 4:
            raise BadCommand("SAMConfiguration takes a mode 1..4 [timeout [IRQ]]")
        self.sam_mode = args[0]
        return []

    def power_down(self, args):
        if not 1 <= len(args) <= 2:
            raise BadCommand("PowerDown takes WakeUpEnable [GenerateIRQ]")
        self.set_field(False)
        self.power = "powerdown"
        return [OK]

    def rf_configuration(self, args):
        sizes = {0x01: 1, 0x02: 3, 0x04: 1, 0x05: 3, 0x0A: 11, 0x0B: 8, 0x0C: 3, 0x0D: 9}
        if not args or args[0] not in sizes or len(args) != 1 + sizes[args[0]]:
            raise BadCommand("RFConfiguration item or length not valid")
        item, value = args[0], args[1:]
        self.rf_items[item] = bytes(value).hex().upper()
        if item == 0x01:
            self.set_field(value[0] & 0x01 != 0)
        elif item == 0x05:
            self.max_retries = list(value)  # answered at once all the same: the emulator never waits
        return []

    # --- initiator commands ---

    def set_framing(self, speed, framing):
        for address in (REG_TX_MODE, REG_RX_MODE):
            self.registers[address] = self.registers.get(address, 0) & 0x8C | speed << 4 | framing

    def in_list_passive_target(self, args):
        if len(args) < 2 or args[0] not in (1, 2):
            raise BadCommand("InListPassiveTarget takes MaxTg 1..2, BrTy [InitiatorData]")
        modulation, initiator_data = args[1], bytes(args[2:])
        if modulation > 0x04:
            raise BadCommand("InListPassiveTarget BrTy %02X is not a PN532 one" % modulation)
        self.set_field(True)
        if modulation != 0x00:  # FeliCa 212/424, ISO 14443B, Jewel: no such target here
            self.set_framing(*{0x01: (1, 2), 0x02: (2, 2), 0x03: (0, 3), 0x04: (0, 0)}[modulation])
            return [0x00]
        self.set_framing(0, 0)
        self.polls += 1
        data = self.poll_106a(initiator_data, rats=self.parameters & 0x10 != 0)
        return [0x00] if data is None else [0x01] + list(data)

    def poll_106a(self, initiator_data=b"", rats=True):
        """One REQA (and, if the target answers, anticollision, SELECT and RATS): its target data
        (Tg, SENS_RES, SEL_RES, NFCID, ATS), or None when nothing answers."""
        target = self.powered_target()
        if target is None or target.state != "idle":
            return None
        if initiator_data:  # select a given UID (cascaded): a phone's changes every time
            if target.is_phone or initiator_data not in (target.uid, b"\x88" + target.uid):
                return None
        if target.is_phone and not self.card.poll():
            self.silent_polls += 1
            return None
        target.activate(target.uid_for_activation(), rats)
        self.selects += 1
        if self.first_select_answer_ns is None:
            self.first_select_answer_ns = self.clock()
        return target.target_data()

    def in_auto_poll(self, args):
        if len(args) < 3 or len(args) > 17 or args[0] == 0 or not 1 <= args[1] <= 0x0F:
            raise BadCommand("InAutoPoll takes PollNr, Period 1..15, Type1..Type15")
        poll_number, period, types = args[0], args[1], list(args[2:])
        self.set_field(True)
        found = self.auto_poll_once(types)
        if found is not None:
            return found
        due = None if poll_number == 0xFF else self.clock() + poll_number * len(types) * period * POLL_PERIOD_NS
        return Pending(0x60, due, on_due=lambda: bytes([0x61, 0x00]), on_change=lambda: self.auto_poll_answer(types))

    def auto_poll_answer(self, types):
        found = self.auto_poll_once(types)
        return None if found is None else bytes([0x61]) + bytes(found)

    def auto_poll_once(self, types):
        """The chip's polling loop, run until the target answers (a requires_ecp phone heard no
        ECP: after ecp_cycles polls) or 16 rounds passed: NbTg, Type, length, target data."""
        target = self.powered_target()
        if target is None:
            return None
        matching = [kind for kind in types if kind in (0x00, 0x10) or (kind == 0x20 and not target.is_memory)]
        if not matching:
            return None
        kind = matching[0]
        for _ in range(16):
            data = self.poll_106a(rats=kind == 0x20)
            if data is not None:
                return [0x01, kind, len(data)] + list(data)
            if target.state != "idle":
                return None
        return None

    def in_select(self, args):
        if len(args) != 1:
            raise BadCommand("InSelect takes Tg")
        target = self.powered_target()
        if args[0] != 0x01 or not self.target.listed:
            return [BAD_CONTEXT]
        if target is None or target.state == "idle":
            return [TIMEOUT]
        target.state = "active"  # WUPA + SELECT of the known UID
        return [OK]

    def in_deselect(self, args):
        return self.halt_targets(args, release=False)

    def in_release(self, args):
        return self.halt_targets(args, release=True)

    def halt_targets(self, args, release):
        if len(args) != 1 or args[0] not in (0x00, 0x01):
            raise BadCommand("InDeselect/InRelease take Tg 0 or 1")
        target = self.target
        if target.listed and target.state == "active" and self.powered_target() is not None:
            target.state = "halt"  # S(DESELECT) or HLTA
        if release:
            target.listed = False
        self.answer_rest = b""
        return [OK]

    def in_jump_for_dep(self, args):
        if len(args) < 3:
            raise BadCommand("InJumpForDEP takes ActPass, BR, Next")
        self.set_field(True)
        return [TIMEOUT]  # a card or phone is no NFC-DEP target

    def in_data_exchange(self, args):
        if not args:
            raise BadCommand("InDataExchange takes Tg")
        number, data = args[0], bytes(args[1:])
        if self.answer_rest and number & 0x3F == 0x01 and not data:  # the host asks for the rest (MI)
            return self.exchange_answer(OK, b"")
        self.answer_rest = b""
        target = self.active_target()
        if target is None:
            self.host_chain = b""
            return [TIMEOUT]
        if number & 0x3F != 0x01:
            return [BAD_CONTEXT]
        if target.is_memory:  # not ISO-DEP: MIFARE Ultralight commands only
            if len(data) == 2 and data[0] == 0x30:
                return self.exchange_apdu(target, data, page_read=True)
            target.raw(data)  # an APDU: no answer, and the tag falls back to idle
            return [TIMEOUT]
        if not target.layer4:
            answer = target.raw(data)
            return [OK] + list(answer) if answer is not None else [TIMEOUT]
        if number & 0x40:  # the host chains (MI): more data follows
            self.host_chain += data
            return [OK]
        apdu, self.host_chain = self.host_chain + data, b""
        return self.exchange_apdu(target, apdu)

    def exchange_apdu(self, target, apdu, page_read=False):
        """An APDU to an ISO-DEP target, or (`page_read`) a Type 2 READ to a memory tag; either is
        an exchange that pull-after, stall and delay apply to."""
        now = self.clock()
        self.apdus += 1
        self.tap_apdus += 1
        if self.first_apdu_ns is None:
            self.first_apdu_ns = now
        if self.tap_pull_after is not None and self.tap_apdus >= self.tap_pull_after:
            log(self.verbose, "pulling the target on InDataExchange", self.tap_apdus)
            self.tap_pull_after = None
            self.remove()
            return [TIMEOUT]
        if self.stall_pending:
            self.stall_pending = False
            self.stalled = True
            log(self.verbose, "stalling InDataExchange", self.tap_apdus, "until the target is removed")
            tap = self.taps
            return Pending(0x40, None, on_change=lambda: None if self.still_there(tap) else bytes([0x41, TIMEOUT]))
        if page_read:
            pages = target.read_pages(apdu[1])
            reply = [OK] + list(pages) if pages is not None else [MIFARE_ERROR]  # NAK past the end
            log(self.verbose, "READ", apdu.hex().upper(), "->", bytes(reply).hex().upper())
        else:
            answer = self.card.answer(apdu)
            target.i_block_answer(answer)
            log(self.verbose, "APDU", apdu.hex().upper(), "->", answer.hex().upper())
            reply = self.exchange_answer(OK, answer)
        self.last_apdu_ns = self.clock()
        if self.delay_ns:
            return self.delayed(0x40, bytes([0x41]) + bytes(reply))
        return reply

    def still_there(self, tap):
        """Whether the target of tap number `tap` is still in the field."""
        return self.target.present and self.taps == tap

    def delayed(self, command, answer):
        """`answer` (full, command code + 1 first) sent delay_ns late; status 01 if the target leaves."""
        gone, tap = bytes([command + 1, TIMEOUT]), self.taps
        return Pending(command, self.clock() + self.delay_ns, on_due=lambda: answer,
                       on_change=lambda: None if self.still_there(tap) else gone)

    def exchange_answer(self, status, answer):
        """Status + data, with the MI bit and the rest kept when it is longer than the buffer."""
        data = self.answer_rest + answer if self.answer_rest else answer
        piece, self.answer_rest = data[:MAX_EXCHANGE_DATA], data[MAX_EXCHANGE_DATA:]
        return [status | (0x40 if self.answer_rest else 0)] + list(piece)

    def in_communicate_thru(self, args):
        data = bytes(args)
        self.set_field(True)
        if not data:
            return [TIMEOUT]
        crc_by_chip = self.registers.get(REG_TX_MODE, 0) & CRC_ENABLE != 0
        framing_b = self.registers.get(REG_TX_MODE, 0) & 0x03 == 0x03
        whole_bytes = self.registers.get(REG_BIT_FRAMING, 0) & 0x07 == 0
        frame, crc_ok = data, None
        if not crc_by_chip:
            crc = crc_b if framing_b else crc_a
            crc_ok = len(data) > 2 and crc(data[:-2]) == data[-2:]
            frame = data[:-2] if crc_ok else b""
        if data[0] == 0x6A and whole_bytes:
            self.hear_ecp(data, frame, crc_by_chip, crc_ok, framing_b)
            return [TIMEOUT]  # nothing ever answers ECP
        target = self.powered_target()
        if target is None or not frame or not whole_bytes:
            return [TIMEOUT]
        answer = target.raw(frame)
        if answer is None:
            return [TIMEOUT]
        if not self.registers.get(REG_RX_MODE, 0) & CRC_ENABLE:
            answer = answer + (crc_b if framing_b else crc_a)(answer)
        reply = [OK] + list(answer)
        if self.delay_ns:
            return self.delayed(0x42, bytes([0x43]) + bytes(reply))
        return reply

    def hear_ecp(self, data, frame, crc_by_chip, crc_ok, framing_b):
        """An ECP frame (6A ...) on the air: recorded; a phone in the field, not selected, hears it."""
        target = self.powered_target()
        counted = False
        if target is not None and target.is_phone and target.state != "active" and frame:
            counted = self.card.hear_ecp(frame)
        entry = {"t_ns": self.clock(), "hex": data.hex().upper(), "frame": frame.hex().upper(),
                 "crc_by_chip": crc_by_chip, "crc_ok": crc_ok, "framing": "B" if framing_b else "A", "counted": counted}
        self.ecp_frames.append(entry)
        self.ecp_total += 1
        del self.ecp_frames[:-MAX_RECORDED_ECP]
        log(self.verbose, "ECP", entry)

    # --- stats ---

    def status(self):
        target = self.target
        return {
            "taps": self.taps, "tap_ns": self.tap_ns, "present": target.present,
            "target_state": target.state if target.present else None,
            "uid": target.uid.hex().upper() if target.present and target.state != "idle" else None,
            "first_select_answer_ns": self.first_select_answer_ns, "selects": self.selects, "polls": self.polls,
            "silent_polls": self.silent_polls, "first_apdu_ns": self.first_apdu_ns, "last_apdu_ns": self.last_apdu_ns,
            "apdus": self.apdus, "ecp_frames": list(self.ecp_frames), "ecp_total": self.ecp_total, "field": self.field, "power": self.power,
            "field_changed_ns": self.field_changed_ns, "parameters": self.parameters,
            "max_retries": bytes(self.max_retries).hex().upper(), "crc_by_chip": self.registers.get(REG_TX_MODE, 0) & CRC_ENABLE != 0,
            "unknown_commands": list(self.unknown_commands), "stalled": self.stalled,
            "delay_ms": self.delay_ns // 1_000_000, "pending": COMMAND_NAMES.get(self.pending.command) if self.pending else None,
        }


# --- the pty, the control socket, the loop ------------------------------------------------------


def pty_holders(path, exclude_pid):
    """Pids of processes (that we may inspect) with `path` open: Linux /proc."""
    holders = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == exclude_pid:
            continue
        folder = "/proc/%s/fd" % entry
        try:
            for fd in os.listdir(folder):
                if os.readlink(os.path.join(folder, fd)) == path:
                    holders.append(int(entry))
                    break
        except OSError:
            continue
    return holders


class Emulator:
    """The PN532 on a pty and its control socket, served by one select loop."""

    def __init__(self, card, link=None, control=None, record=None, ready_file=None, verbose=False):
        self.chip = Chip(card, verbose)
        self.card = card
        self.link = link
        self.control_path = control
        self.record_path = record
        self.ready_file = ready_file
        self.verbose = verbose
        self.master = self.slave = None
        self.slave_name = None
        self.parser = FrameParser()
        self.out = bytearray()
        self.last_sent = None
        self.frames = []
        self.frames_dropped = 0
        self.host_frames = 0
        self.garble_next = 0  # answers still to send with a bad data checksum (`garble N`)
        self.garbled = 0
        self.last_host_frame_ns = None
        self.record_file = open(record, "a") if record else None
        self.server = None
        self.clients = {}
        self.quit = False
        self.vanished = False

    # --- pty ---

    def open_pty(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)  # no echo, no line discipline, before libnfc opens it
        os.set_blocking(self.master, False)
        self.slave_name = os.ttyname(self.slave)
        self.parser = FrameParser()
        self.out = bytearray()
        self.last_sent = None
        if self.link:
            temporary = "%s.%d.tmp" % (self.link, os.getpid())
            if os.path.lexists(temporary):
                os.unlink(temporary)
            os.symlink(self.slave_name, temporary)
            os.replace(temporary, self.link)
        self.vanished = False
        log(self.verbose, "pty", self.slave_name, "link", self.link)

    def close_pty(self):
        for fd in (self.master, self.slave):
            if fd is not None:
                os.close(fd)
        self.master = self.slave = None
        if self.link and os.path.islink(self.link):
            os.unlink(self.link)

    def vanish(self):
        self.close_pty()
        self.chip.power_on()
        self.vanished = True

    def reappear(self):
        self.close_pty()
        self.chip.power_on()
        self.open_pty()

    # --- frames on the wire ---

    def record(self, direction, kind, data):
        entry = {"t_ns": time.monotonic_ns(), "dir": direction, "kind": kind, "hex": bytes(data).hex().upper()}
        self.frames.append(entry)
        if len(self.frames) > MAX_RECORDED_FRAMES:
            del self.frames[0]
            self.frames_dropped += 1
        if self.record_file:
            self.record_file.write(json.dumps(entry) + "\n")
            self.record_file.flush()
        if self.verbose:
            arrow = ">>" if direction == "host" else "<<"
            log(True, arrow, kind, entry["hex"])

    def send(self, raw):
        if self.master is None:
            return
        self.out += raw
        self.flush_out()

    def flush_out(self):
        while self.out and self.master is not None:
            try:
                written = os.write(self.master, self.out)
            except BlockingIOError:
                return
            except OSError as error:
                log(self.verbose, "write to the pty failed:", error)
                self.out.clear()
                return
            del self.out[:written]

    def answer(self, answer):
        """Sends a chip answer (bytes after D5) as a frame."""
        payload = bytes([CHIP_TFI]) + answer
        frame = build_frame(payload)
        self.last_sent = frame
        self.record("chip", "answer", payload)
        if self.garble_next > 0:
            # A line glitch: the data checksum (second to last byte) is wrong.
            self.garble_next -= 1
            frame = frame[:-2] + bytes([frame[-2] ^ 0xFF]) + frame[-1:]
            self.garbled += 1
        self.send(frame)

    def host_bytes(self, data):
        for event in self.parser.feed(data):
            kind = event[0]
            if kind == "frame":
                self.host_frame(event[1])
            elif kind == "ack":
                self.record("host", "ack", event[1])
                self.abort_pending("host ACK")
            elif kind == "nack":
                self.record("host", "nack", event[1])
                if self.last_sent is not None:
                    self.send(self.last_sent)
            else:
                self.record("host", "bad", event[1])
                log(True, "ignored a host frame with a bad %s: %s" % (event[2], event[1].hex().upper()))

    def abort_pending(self, why):
        if self.chip.pending is not None:
            log(self.verbose, "aborted", COMMAND_NAMES.get(self.chip.pending.command), "(%s)" % why)
            self.chip.pending = None

    def host_frame(self, payload):
        self.host_frames += 1
        self.last_host_frame_ns = time.monotonic_ns()
        self.record("host", "command", payload)
        self.abort_pending("new command")
        self.send(ACK)
        try:
            result = self.chip.execute(payload[1:])
        except BadCommand as error:
            log(True, "syntax error frame for %s: %s" % (payload.hex().upper(), error))
            self.last_sent = ERROR_FRAME
            self.record("chip", "error", ERROR_FRAME[5:6])
            self.send(ERROR_FRAME)
            return
        if isinstance(result, Pending):
            self.chip.pending = result
            self.check_pending()
        else:
            self.answer(result)

    def check_pending(self, due_only=False):
        """Answers a pending command whose time came, or that the last event settled."""
        pending = self.chip.pending
        if pending is None:
            return
        answer = None
        if pending.due_ns is not None and time.monotonic_ns() >= pending.due_ns:
            answer = pending.on_due()
        elif not due_only and pending.on_change is not None:
            answer = pending.on_change()
        if answer is not None:
            self.chip.pending = None
            self.answer(answer)

    # --- control ---

    def handle(self, line):
        words = line.split()
        if not words:
            return {"ok": False, "error": "empty command"}
        command, rest = words[0], words[1:]
        chip = self.chip
        if command == "tap":
            chip.tap()
            return {"ok": True, "taps": chip.taps, "tap_ns": chip.tap_ns}
        if command == "remove":
            chip.remove()
            return {"ok": True, "present": False}
        if command == "vanish":
            self.vanish()
            return {"ok": True, "vanished": True}
        if command == "reappear":
            if not self.vanished:
                return {"ok": False, "error": "not vanished"}
            self.reappear()
            return {"ok": True, "link": self.link, "pty": self.slave_name}
        if command == "stall":
            chip.stall_pending = True
            return {"ok": True, "stall": True}
        if command == "delay":
            milliseconds = int(rest[0])
            if milliseconds < 0:
                raise ValueError("delay must be 0 or more milliseconds, not %d" % milliseconds)
            chip.delay_ns = milliseconds * 1_000_000
            return {"ok": True, "delay_ms": milliseconds}
        if command == "pull-after":
            count = int(rest[0])
            if count < 1:
                raise ValueError("pull-after takes a count from 1, not %d" % count)
            chip.pull_after = count
            return {"ok": True}
        if command == "garble":
            count = int(rest[0]) if rest else 1
            if count < 1:
                raise ValueError("garble takes a count from 1, not %d" % count)
            self.garble_next = count
            return {"ok": True, "garble": count}
        if command == "frames":
            return {"ok": True, "frames": list(self.frames), "dropped": self.frames_dropped}
        if command == "clear":
            self.frames.clear()
            chip.ecp_frames.clear()
            return {"ok": True}
        if command == "stats":
            return dict({"ok": True}, **self.stats())
        if command == "profile":
            if chip.target.present:
                raise ValueError("remove the target before changing its profile")
            if chip.target.is_phone:
                raise ValueError("a virtual phone keeps its profile")
            self.card = chip.card = Card(load_profile(rest[0]))
            chip.target = Target(self.card)
            return {"ok": True, "profile": rest[0]}
        if command == "quit":
            self.quit = True
            return {"ok": True, "quit": True}
        reply = self.card.control(command, rest)
        if reply is not None:
            return reply
        known = "tap, remove, vanish, reappear, stall, delay MS, pull-after N, garble [N], profile NAME, frames, clear, stats, quit"
        known = ", ".join(filter(None, [known, self.card.control_commands]))
        return {"ok": False, "error": "unknown command %r (%s)" % (command, known)}

    def stats(self):
        stats = self.chip.status()
        holders = pty_holders(self.slave_name, os.getpid()) if self.slave_name and not self.vanished else []
        stats.update({"connected": bool(holders), "holders": holders, "link": self.link,
                      "pty": None if self.vanished else self.slave_name, "vanished": self.vanished,
                      "host_frames": self.host_frames, "last_host_frame_ns": self.last_host_frame_ns,
                      "garbled": self.garbled})
        stats.update(self.card.status())
        return stats

    def control_line(self, client, line):
        try:
            reply = self.handle(line.strip())
        except (OSError, ValueError, IndexError) as error:
            reply = {"ok": False, "error": str(error)}
        try:
            client.sendall((json.dumps(reply) + "\n").encode())
        except OSError:
            self.drop_client(client)
        if line.split()[:1] not in (["stats"], ["frames"], ["clear"]):
            self.check_pending()  # a tap, removal or card change may settle a waiting command

    def drop_client(self, client):
        self.clients.pop(client, None)
        client.close()

    # --- loop ---

    def start(self):
        self.open_pty()
        if self.control_path:
            if os.path.exists(self.control_path):
                os.unlink(self.control_path)
            self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.server.bind(self.control_path)
            self.server.listen(8)
        ready = {"link": self.link, "pty": self.slave_name, "control": self.control_path, "pid": os.getpid()}
        if self.ready_file:
            temporary = self.ready_file + ".tmp"
            with open(temporary, "w") as handle:
                json.dump(ready, handle)
            os.replace(temporary, self.ready_file)
        print("ready link=%s pty=%s control=%s" % (self.link, self.slave_name, self.control_path), flush=True)

    def serve(self, tap_every=None, hold=None, first_tap_after=0):
        """Runs until `quit`. With `tap_every`, the target enters the field every `tap_every`
        seconds, the first time `first_tap_after` seconds after the start, and leaves `hold`
        seconds later (the demo)."""
        try:
            self.start()
            next_change = time.monotonic() + first_tap_after if tap_every else None
            while not self.quit:
                if next_change is not None and time.monotonic() >= next_change:
                    if self.chip.target.present:
                        self.chip.remove()
                        next_change += tap_every - hold
                    else:
                        self.chip.tap()
                        next_change = time.monotonic() + hold
                self.step(None if next_change is None else max(next_change - time.monotonic(), 0))
        finally:
            self.stop()

    def step(self, max_wait=None):
        readers = list(self.clients)
        if self.server is not None:
            readers.append(self.server)
        if self.master is not None:
            readers.append(self.master)
        writers = [self.master] if self.out and self.master is not None else []
        timeout = max_wait
        pending = self.chip.pending
        if pending is not None and pending.due_ns is not None:
            wait = max(pending.due_ns - time.monotonic_ns(), 0) / 1e9
            timeout = wait if timeout is None else min(timeout, wait)
        readable, writable, _ = select.select(readers, writers, [], timeout)
        if writable:
            self.flush_out()
        for ready in readable:
            if ready is self.server:
                client, _ = self.server.accept()
                client.settimeout(5)
                self.clients[client] = b""
            elif ready is self.master:
                self.read_master()
            elif ready in self.clients:
                self.read_client(ready)
            if self.quit:
                return
        self.check_pending(due_only=True)

    def read_master(self):
        try:
            data = os.read(self.master, 4096)
        except BlockingIOError:
            return
        except OSError as error:
            log(self.verbose, "pty read failed:", error)
            return
        if data:
            self.host_bytes(data)

    def read_client(self, client):
        try:
            data = client.recv(4096)
        except OSError:
            data = b""
        if not data:
            self.drop_client(client)
            return
        buffered = self.clients[client] + data
        while b"\n" in buffered and not self.quit:
            line, buffered = buffered.split(b"\n", 1)
            self.clients[client] = buffered
            self.control_line(client, line.decode("utf-8", "replace"))
            if client not in self.clients:
                return
        if client in self.clients:
            self.clients[client] = buffered

    def stop(self):
        self.chip.remove()
        for client in list(self.clients):
            self.drop_client(client)
        if self.server is not None:
            self.server.close()
            if os.path.exists(self.control_path):
                os.unlink(self.control_path)
        self.close_pty()
        if self.ready_file and os.path.exists(self.ready_file):
            os.unlink(self.ready_file)
        if self.record_file:
            self.record_file.close()


def make_card(args):
    profile = load_profile(args.profile)
    if args.no_uid:
        profile["uid_supported"] = False
    if not args.phone:
        if args.requires_ecp or args.ecp_cycles is not None:
            raise SystemExit("pn532_emulator: --requires-ecp and --ecp-cycles need --phone")
        return Card(profile)
    phone = load_phone(args.phone, profile)
    if (args.requires_ecp or args.ecp_cycles is not None) and not hasattr(phone, "checked_ecp_cycles"):
        raise SystemExit("pn532_emulator: --requires-ecp and --ecp-cycles are for a virtual iPhone, not an Android phone")
    if args.requires_ecp:
        phone.requires_ecp = True
    if args.ecp_cycles is not None:
        phone.ecp_cycles = phone.checked_ecp_cycles(args.ecp_cycles)
    return phone


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--link", help="symlink to the pty slave (libnfc: pn532_uart:LINK)")
    parser.add_argument("--control", help="Unix socket for line commands")
    parser.add_argument("--record", help="append every frame to this file as JSON lines")
    parser.add_argument("--ready-file", help="written once the pty, link and socket are ready")
    parser.add_argument("--profile", help="card profile JSON file, or a built-in profile's name (virtual_card.py --help; default: the demo card)")
    parser.add_argument("--no-uid", action="store_true", help="as virtual_card.py (only the vpcd UID read uses it)")
    parser.add_argument("--phone", help="phone file (JSON): be a virtual iPhone with these Wallet passes")
    parser.add_argument("--requires-ecp", action="store_true", help="the phone waits for ECP (overrides the file)")
    parser.add_argument("--ecp-cycles", type=int, help="ECP frames the phone needs (overrides the file)")
    parser.add_argument("--tap", action="store_true", help="start with the target in the field")
    parser.add_argument("--tap-every", type=float, metavar="SEC", help="the target enters the field every SEC seconds (the demo)")
    parser.add_argument("--hold", type=float, default=1.0, metavar="SEC", help="with --tap-every: and leaves after SEC seconds (1)")
    parser.add_argument("--first-tap-after", type=float, default=0, metavar="SEC", help="with --tap-every: the first tap after SEC seconds (0)")
    parser.add_argument("-v", "--verbose", action="store_true", help="log frames on stderr")
    args = parser.parse_args()

    if args.tap_every is not None and not 0 < args.hold < args.tap_every:
        raise SystemExit("pn532_emulator: --hold must be more than 0 and less than --tap-every")
    card = make_card(args)
    emulator = Emulator(card, args.link, args.control, args.record, args.ready_file, args.verbose)
    if args.tap:
        emulator.chip.tap()
    exit_on_signals()
    emulator.serve(args.tap_every, args.hold, args.first_tap_after)


if __name__ == "__main__":
    main()
