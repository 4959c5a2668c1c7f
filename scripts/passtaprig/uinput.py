"""The /dev/uinput stand-in (scripts/rig/uinput_shim.c): building it, and reading what a program
typed through it. The shim's log is one JSON object a line, {"op": ..., "fd": ...}; the ops and
their fields are listed at the top of the C file."""

import json
import os
import subprocess

from . import RIG_DIR

SOURCE = os.path.join(RIG_DIR, "uinput_shim.c")
# struct input_event's types and codes (linux/input-event-codes.h) the checks below need.
EV_SYN = 0
EV_KEY = 1
SYN_REPORT = 0


def build_shim(out_dir, *, timeout=60):
    """Compiles the shim into `out_dir`; the .so's path, for LD_PRELOAD."""
    path = os.path.join(out_dir, "uinput_shim.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", path, SOURCE, "-ldl"], check=True, timeout=timeout)
    return path


def read_log(path):
    """The shim's records at `path`, in the order they were made; none when the program never
    opened /dev/uinput (the shim makes the file on its first record)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as log:
        return [json.loads(line) for line in log if line.strip()]


def events(records):
    """The input events written, as (type, code, value)."""
    return [(r["type"], r["code"], r["value"]) for r in records if r["op"] == "event"]


def key_strokes(records):
    """The EV_KEY events written, as (code, value): value 1 down, 0 up, 2 autorepeat."""
    return [(code, value) for kind, code, value in events(records) if kind == EV_KEY]


def check_syn_after_each_key(records):
    """None when every EV_KEY event is followed by a SYN_REPORT before the next EV_KEY (and the
    last one by one at all): a reader of the device sees nothing of an event until its report, so
    a key without one lands late or together with the next. Otherwise what is wrong."""
    pending = None  # the index, among the events, of a key still waiting for its report
    for index, (kind, code, value) in enumerate(events(records)):
        if kind == EV_KEY:
            if pending is not None:
                return "key event %d (code %d) has no SYN_REPORT before key event %d (code %d)" % (
                    pending[0], pending[1], index, code)
            pending = (index, code)
        elif (kind, code, value) == (EV_SYN, SYN_REPORT, 0):
            pending = None
    if pending is not None:
        return "key event %d (code %d) is never followed by a SYN_REPORT" % pending
    return None
