#!/usr/bin/env python3
"""A libnfc client for the emulated PN532 (and any libnfc device): runs a list of steps through
the real libnfc (libnfc.so.6, by ctypes) and prints one JSON line per step.

  nfc_session.py pn532_uart:/tmp/pn532 select apdu:00A404000A4F53452E5641532E303100 present deselect

Steps (after nfc_open and nfc_initiator_init):
  select             nfc_initiator_select_passive_target(ISO14443A, 106) with NP_INFINITE_SELECT
                     off: {"result": targets, "uid", "atqa", "sak", "ats"}
  apdu:HEX           nfc_initiator_transceive_bytes (easy framing: InDataExchange): {"data"}
  raw:HEX            the same with NP_EASY_FRAMING off (InCommunicateThru), then on again
  ecp:HEX            a raw frame sent as an ECP is (easy framing off, 50 ms timeout), result ignored
  present            nfc_initiator_target_is_present on the selected target
  deselect           nfc_initiator_deselect_target
  poll:N:PERIOD      nfc_initiator_poll_target(ISO14443A 106, N polls, PERIOD x 150 ms)
  field:on|off       NP_ACTIVATE_FIELD
  crc:on|off         NP_HANDLE_CRC
  sleep:MS           time.sleep
Each line: {"step", "result" (libnfc's return value), "error" (nfc_strerror when < 0), "ms", ...}.
nfc_close and nfc_exit run at the end (or when a step cannot run: exit status 2).
"""

import ctypes
import json
import sys
import time

NP_HANDLE_CRC = 3
NP_ACTIVATE_FIELD = 5
NP_INFINITE_SELECT = 7
NP_EASY_FRAMING = 11
NMT_ISO14443A = 1
NBR_106 = 1


class Modulation(ctypes.Structure):
    _fields_ = [("nmt", ctypes.c_int), ("nbr", ctypes.c_int)]


class Iso14443aInfo(ctypes.Structure):
    _pack_ = 1  # nfc-types.h: #pragma pack(1)
    _fields_ = [("atqa", ctypes.c_uint8 * 2), ("sak", ctypes.c_uint8), ("uid_length", ctypes.c_size_t),
                ("uid", ctypes.c_uint8 * 10), ("ats_length", ctypes.c_size_t), ("ats", ctypes.c_uint8 * 254)]


class TargetBuffer(ctypes.Structure):
    """nfc_target, big enough for any member of its union (the ISO 14443 A info is at offset 0)."""

    _fields_ = [("raw", ctypes.c_uint8 * 1024)]

    def iso14443a(self):
        info = Iso14443aInfo.from_buffer(self)
        uid = bytes(info.uid[: min(info.uid_length, 10)])
        ats = bytes(info.ats[: min(info.ats_length, 254)])
        return {"uid": uid.hex().upper(), "atqa": bytes(info.atqa).hex().upper(), "sak": "%02X" % info.sak, "ats": ats.hex().upper()}


class LibNFC:
    def __init__(self, connstring):
        self.lib = ctypes.CDLL("libnfc.so.6")
        lib = self.lib
        lib.nfc_open.restype = ctypes.c_void_p
        lib.nfc_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        lib.nfc_close.argtypes = [ctypes.c_void_p]
        lib.nfc_exit.argtypes = [ctypes.c_void_p]
        lib.nfc_initiator_init.argtypes = [ctypes.c_void_p]
        lib.nfc_device_set_property_bool.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_bool]
        lib.nfc_initiator_select_passive_target.argtypes = [ctypes.c_void_p, Modulation, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        lib.nfc_initiator_transceive_bytes.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        lib.nfc_initiator_target_is_present.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.nfc_initiator_deselect_target.argtypes = [ctypes.c_void_p]
        lib.nfc_initiator_poll_target.argtypes = [ctypes.c_void_p, ctypes.POINTER(Modulation), ctypes.c_size_t, ctypes.c_uint8, ctypes.c_uint8, ctypes.c_void_p]
        lib.nfc_strerror.restype = ctypes.c_char_p
        lib.nfc_strerror.argtypes = [ctypes.c_void_p]
        self.context = ctypes.c_void_p()
        lib.nfc_init(ctypes.byref(self.context))
        if not self.context:
            raise OSError("nfc_init failed")
        self.device = lib.nfc_open(self.context, connstring.encode())
        if not self.device:
            lib.nfc_exit(self.context)
            raise OSError("nfc_open(%s) failed" % connstring)
        self.target = TargetBuffer()
        self.selected = False

    def close(self):
        self.lib.nfc_close(self.device)
        self.lib.nfc_exit(self.context)

    def error(self, result):
        return self.lib.nfc_strerror(self.device).decode() if result < 0 else None

    def set(self, prop, value):
        return self.lib.nfc_device_set_property_bool(self.device, prop, value)

    def transceive(self, data, timeout=0):
        buffer = ctypes.create_string_buffer(300)
        result = self.lib.nfc_initiator_transceive_bytes(self.device, data, len(data), buffer, 300, timeout)
        return result, buffer.raw[: max(result, 0)]

    def step(self, step):
        name, _, argument = step.partition(":")
        reply = {}
        if name == "init":
            result = self.lib.nfc_initiator_init(self.device)
        elif name == "select":
            self.set(NP_INFINITE_SELECT, False)
            result = self.lib.nfc_initiator_select_passive_target(self.device, Modulation(NMT_ISO14443A, NBR_106), None, 0, ctypes.byref(self.target))
            if result > 0:
                reply.update(self.target.iso14443a())
        elif name == "apdu":
            result, data = self.transceive(bytes.fromhex(argument))
            reply["data"] = data.hex().upper()
        elif name in ("raw", "ecp"):
            self.set(NP_EASY_FRAMING, False)
            result, data = self.transceive(bytes.fromhex(argument), 50 if name == "ecp" else 0)
            reply.update(data=data.hex().upper(), error=self.error(result))
            self.set(NP_EASY_FRAMING, True)
        elif name == "present":
            result = self.lib.nfc_initiator_target_is_present(self.device, ctypes.byref(self.target))
        elif name == "deselect":
            result = self.lib.nfc_initiator_deselect_target(self.device)
        elif name == "poll":
            polls, _, period = argument.partition(":")
            modulation = (Modulation * 1)(Modulation(NMT_ISO14443A, NBR_106))
            result = self.lib.nfc_initiator_poll_target(self.device, modulation, 1, int(polls), int(period), ctypes.byref(self.target))
            if result > 0:
                reply.update(self.target.iso14443a())
        elif name in ("field", "crc"):
            result = self.set(NP_ACTIVATE_FIELD if name == "field" else NP_HANDLE_CRC, argument == "on")
        elif name == "sleep":
            time.sleep(int(argument) / 1000)
            result = 0
        else:
            raise ValueError("unknown step %r" % step)
        reply["result"] = result
        reply.setdefault("error", self.error(result))
        return reply


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    started = time.monotonic()
    try:
        session = LibNFC(sys.argv[1])
    except OSError as error:
        print(json.dumps({"step": "open", "result": -1, "error": str(error)}), flush=True)
        return 2
    print(json.dumps({"step": "open", "result": 0, "ms": round((time.monotonic() - started) * 1000, 3)}), flush=True)
    status = 0
    try:
        for step in ["init"] + sys.argv[2:]:
            begun = time.monotonic()
            try:
                reply = session.step(step)
            except ValueError as error:
                print(json.dumps({"step": step, "result": -1, "error": str(error)}), flush=True)
                status = 2
                break
            reply = dict({"step": step}, **reply, ms=round((time.monotonic() - begun) * 1000, 3))
            print(json.dumps(reply), flush=True)
    finally:
        begun = time.monotonic()
        session.close()
        print(json.dumps({"step": "close", "result": 0, "ms": round((time.monotonic() - begun) * 1000, 3)}), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
