#!/usr/bin/env python3
"""Waits until scripts/demo's passtapd has read each of the demo's devices, from the events that
`passtap watch --json --since 1` writes to EVENTS (one JSON line each; the file grows while this
runs):

- the virtual iPhone on Virtual PCD 00 00: a `read.result` whose Apple VAS entry is `success`;
- the virtual Android phone on Virtual PCD 00 01: a `read.result` whose Smart Tap status is
  `success`;
- the NTAG215 on the emulated PN532 nfc:pn532_uart:/tmp/passtap-demo/pn532-tag: a `read.result`
  with an NDEF message of at least one record.

Exit 0 once all three are seen (printing one line each on stderr), 1 after --wait seconds naming
those missing. Used by `scripts/demo --first-pass --every-device` (scripts/test) and
`scripts/demo --screenshot`.

    scripts/rig/demo_devices.py EVENTS [--wait SECONDS]
"""

import argparse
import json
import sys
import time

# What each device's read looks like: (name, reader id, test of read.result's params).
DEVICES = [
    ("the iPhone's Wallet pass", "pcsc:Virtual PCD 00 00",
     lambda read: any(entry.get("status") == "success" for entry in ((read.get("vas") or {}).get("entries") or []))),
    ("the Android phone's Smart Tap pass", "pcsc:Virtual PCD 00 01",
     lambda read: (read.get("smarttap") or {}).get("status") == "success"),
    ("the tag's NDEF message", "nfc:pn532_uart:/tmp/passtap-demo/pn532-tag",
     lambda read: ((read.get("ndef") or {}).get("record_count") or 0) > 0),
]


def devices_read(lines):
    """The names of the devices some `read.result` among these JSON lines shows read."""
    seen = set()
    for line in lines:
        try:
            message = json.loads(line)
        except ValueError:
            continue  # a line still being written
        params = message.get("params") if isinstance(message, dict) else None
        if not isinstance(params, dict) or params.get("kind") != "read.result":
            continue
        for name, reader, was_read in DEVICES:
            if params.get("reader") == reader and was_read(params):
                seen.add(name)
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("events", help="the file `passtap watch --json --since 1` writes")
    parser.add_argument("--wait", type=float, default=20, metavar="SECONDS", help="give up after this long (20)")
    args = parser.parse_args()
    deadline = time.monotonic() + args.wait
    seen = set()
    while True:
        try:
            with open(args.events) as handle:
                seen = devices_read(handle.read().splitlines())
        except FileNotFoundError:
            pass
        if len(seen) == len(DEVICES) or time.monotonic() >= deadline:
            break
        time.sleep(0.1)
    for name, reader, _ in DEVICES:
        print("demo: %s on %s: %s" % (name, reader, "read" if name in seen else "NOT read"), file=sys.stderr)
    if len(seen) < len(DEVICES):
        print("demo: not every device was read within %g s" % args.wait, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
