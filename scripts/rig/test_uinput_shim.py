"""The /dev/uinput stand-in (uinput_shim.c) under real libevdev: a small C program types
shift+A through libevdev_uinput_create_from_device (LIBEVDEV_UINPUT_OPEN_MANAGED), as the
keyboard output does, and the shim's log holds the device's setup and the exact key stream. Needs
cc and libevdev-dev; no /dev/uinput, no root."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from passtaprig import uinput  # noqa: E402

DEADLINE_S = 20
KEY_A = 30
KEY_LEFTSHIFT = 42
BUS_USB = 3

# Types shift+A and exits 0; on a failure, says which call and exits 1.
TYPIST = r"""
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *call, int rc)
{
    fprintf(stderr, "%s: %s\n", call, strerror(-rc));
    return 1;
}

int main(void)
{
    struct libevdev *dev = libevdev_new();
    libevdev_set_name(dev, "PassTap keyboard");
    libevdev_set_id_bustype(dev, BUS_USB);
    libevdev_set_id_vendor(dev, 0x1209);
    libevdev_set_id_product(dev, 0x7a9b);
    libevdev_set_id_version(dev, 1);
    libevdev_enable_event_type(dev, EV_KEY);
    libevdev_enable_event_code(dev, EV_KEY, KEY_A, NULL);
    libevdev_enable_event_code(dev, EV_KEY, KEY_LEFTSHIFT, NULL);

    struct libevdev_uinput *uidev;
    int rc = libevdev_uinput_create_from_device(dev, LIBEVDEV_UINPUT_OPEN_MANAGED, &uidev);
    if (rc != 0) return fail("libevdev_uinput_create_from_device", rc);
    const struct { unsigned int code; int value; } strokes[] = {
        {KEY_LEFTSHIFT, 1}, {KEY_A, 1}, {KEY_A, 0}, {KEY_LEFTSHIFT, 0},
    };
    for (size_t i = 0; i < sizeof strokes / sizeof strokes[0]; i++) {
        rc = libevdev_uinput_write_event(uidev, EV_KEY, strokes[i].code, strokes[i].value);
        if (rc != 0) return fail("libevdev_uinput_write_event", rc);
        rc = libevdev_uinput_write_event(uidev, EV_SYN, SYN_REPORT, 0);
        if (rc != 0) return fail("libevdev_uinput_write_event", rc);
    }
    printf("syspath=%s\n", libevdev_uinput_get_syspath(uidev));
    libevdev_uinput_destroy(uidev);
    libevdev_free(dev);
    return 0;
}
"""


def compile_typist(folder):
    source = os.path.join(folder, "typist.c")
    with open(source, "w") as f:
        f.write(TYPIST)
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libevdev"], check=True, timeout=DEADLINE_S,
                           capture_output=True, text=True).stdout.split()
    binary = os.path.join(folder, "typist")
    subprocess.run(["cc", "-O2", "-o", binary, source] + flags, check=True, timeout=DEADLINE_S)
    return binary


class UinputShimTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp(prefix="passtap-uinput-")
        cls.shim = uinput.build_shim(cls.folder)
        cls.typist = compile_typist(cls.folder)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)

    def type_with_shim(self, log=None):
        env = dict(os.environ, LD_PRELOAD=self.shim)
        env.pop("PASSTAP_UINPUT_LOG", None)
        if log is not None:
            env["PASSTAP_UINPUT_LOG"] = log
        return subprocess.run([self.typist], env=env, timeout=DEADLINE_S, capture_output=True, text=True)

    def test_libevdev_creates_the_keyboard_and_types_shift_a(self):
        log = os.path.join(self.folder, "typed.jsonl")
        done = self.type_with_shim(log)
        self.assertEqual(done.returncode, 0, done.stderr)
        # libevdev takes the sysfs folder from UI_GET_SYSNAME; that it is missing costs only the devnode.
        self.assertEqual(done.stdout, "syspath=/sys/devices/virtual/input/input99\n")
        records = uinput.read_log(log)
        fds = {r["fd"] for r in records}
        self.assertEqual(len(fds), 1, records)
        self.assertEqual([{k: v for k, v in r.items() if k != "fd"} for r in records], [
            {"op": "open"},
            {"op": "version"},
            # EV_SYN is always there; EV_KEY's codes follow its type, in code order.
            {"op": "set_evbit", "value": 0},
            {"op": "set_evbit", "value": 1},
            {"op": "set_keybit", "value": KEY_A},
            {"op": "set_keybit", "value": KEY_LEFTSHIFT},
            {"op": "setup", "name": "PassTap keyboard", "bustype": BUS_USB, "vendor": 0x1209, "product": 0x7a9b,
             "version": 1, "ff_effects_max": 0},
            {"op": "create"},
            {"op": "sysname"},
            {"op": "event", "type": 1, "code": KEY_LEFTSHIFT, "value": 1},
            {"op": "event", "type": 0, "code": 0, "value": 0},
            {"op": "event", "type": 1, "code": KEY_A, "value": 1},
            {"op": "event", "type": 0, "code": 0, "value": 0},
            {"op": "event", "type": 1, "code": KEY_A, "value": 0},
            {"op": "event", "type": 0, "code": 0, "value": 0},
            {"op": "event", "type": 1, "code": KEY_LEFTSHIFT, "value": 0},
            {"op": "event", "type": 0, "code": 0, "value": 0},
            {"op": "destroy"},
            {"op": "close", "created": False},
        ])
        self.assertEqual(uinput.key_strokes(records), [(KEY_LEFTSHIFT, 1), (KEY_A, 1), (KEY_A, 0), (KEY_LEFTSHIFT, 0)])
        self.assertIsNone(uinput.check_syn_after_each_key(records))

    def test_without_a_log_the_shim_still_answers(self):
        done = self.type_with_shim()
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_a_key_without_its_report_is_named(self):
        def event(kind, code, value):
            return {"op": "event", "fd": 3, "type": kind, "code": code, "value": value}

        syn = event(0, 0, 0)
        self.assertIsNone(uinput.check_syn_after_each_key([event(1, KEY_A, 1), syn, event(1, KEY_A, 0), syn]))
        self.assertIn("before key event 1", uinput.check_syn_after_each_key(
            [event(1, KEY_A, 1), event(1, KEY_A, 0), syn]))
        self.assertIn("never followed", uinput.check_syn_after_each_key([event(1, KEY_A, 1), syn, event(1, KEY_A, 0)]))
        # A SYN_DROPPED (code 3) is not a report.
        self.assertIsNotNone(uinput.check_syn_after_each_key([event(1, KEY_A, 1), event(0, 3, 0)]))

    @unittest.skipIf(os.path.exists("/dev/uinput"), "this machine has a real /dev/uinput")
    def test_without_the_shim_the_program_fails_cleanly(self):
        env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "PASSTAP_UINPUT_LOG")}
        done = subprocess.run([self.typist], env=env, timeout=DEADLINE_S, capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stderr, "libevdev_uinput_create_from_device: No such file or directory\n")


if __name__ == "__main__":
    unittest.main()
