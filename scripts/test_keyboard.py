#!/usr/bin/env python3
"""`passtap keyboard` on the real stack: a private pcscd with vsmartcard-vpcd (scripts/rig/pcscd-rig),
the virtual iPhone (scripts/rig/virtual_card.py --phone) with one Wallet pass per message, the built
passtapd (.build/debug/passtapd) with a [vas] merchant per pass, and the built
`.build/debug/passtap keyboard` subscribed to its socket.

- uinput: under the /dev/uinput stand-in (scripts/rig/uinput_shim.c, LD_PRELOAD), a tapped pass
  `Member-0042@zy` on the German layout becomes the device "PassTap keyboard", then exactly the
  evdev key stream `--check` gives for the text plus Enter (every event followed by SYN_REPORT),
  which also decodes back to the text through this file's own table of the German layout, then
  the device's teardown;
- hostile passes (a control character, a message over max_length) are refused, never typed, and
  the log line names the reason, never the message;
- no replay: a read before the client subscribed is never typed, nor after passtapd restarts
  (the client reconnects and types only what comes later);
- X11: under Xvfb with `setxkbmap de`, through XTEST into a focused headful Chromium field, the
  templated text `M:member-0042@zy` arrives (`@` by AltGr, `:` by Shift).

Takes the pcscd lock ($TMPDIR/passtap-pcscd.lock). Needs cc, libevdev, Xvfb, setxkbmap, xdotool,
chromium, chromium-driver and selenium. Run: python3 -m unittest scripts/test_keyboard.py (after
`swift build`). Each test prints its runtime to stderr.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from passtaprig import keyboardrig, uinput, xsession  # noqa: E402
from passtaprig.keyboardrig import KeyboardClient, write_keyboard_toml  # noqa: E402

TIMEOUT_S = 15
BUS_VIRTUAL = 6
EV_KEY = 1
KEY_ENTER = 28

MEMBER = ("pass.com.passtap.keyboard-member", "Member-0042@zy")
CONTROL = ("pass.com.passtap.keyboard-control", "0042\n rm -rf")
LONG = ("pass.com.passtap.keyboard-long", "member-0042-abcdefghijklmnopq")
FIRST = ("pass.com.passtap.keyboard-first", "first-0001")
SECOND = ("pass.com.passtap.keyboard-second", "second-0002")
THIRD = ("pass.com.passtap.keyboard-third", "third-0003")
PASSES = [MEMBER, CONTROL, LONG, FIRST, SECOND, THIRD]

# The German (de, pc105) layout's characters this file types, by evdev code, written down
# independently of passtap's XKB reading: QWERTZ (the Y and Z keys swapped), `-` right of `.`,
# `:` is Shift+`.`, `@` is AltGr+Q.
SHIFT_KEYS = {42, 54}  # KEY_LEFTSHIFT, KEY_RIGHTSHIFT
ALTGR_KEYS = {100}  # KEY_RIGHTALT (ISO_Level3_Shift on de)
_LETTERS = {16: "q", 17: "w", 18: "e", 19: "r", 20: "t", 21: "z", 22: "u", 23: "i", 24: "o", 25: "p",
            30: "a", 31: "s", 32: "d", 33: "f", 34: "g", 35: "h", 36: "j", 37: "k", 38: "l",
            44: "y", 45: "x", 46: "c", 47: "v", 48: "b", 49: "n", 50: "m"}
GERMAN = {}  # (code, shift, altgr) -> character
for _code, _letter in _LETTERS.items():
    GERMAN[(_code, False, False)] = _letter
    GERMAN[(_code, True, False)] = _letter.upper()
for _code, _digit in zip(range(2, 12), "1234567890"):
    GERMAN[(_code, False, False)] = _digit
GERMAN[(53, False, False)] = "-"
GERMAN[(52, False, False)] = "."
GERMAN[(52, True, False)] = ":"
GERMAN[(16, False, True)] = "@"
GERMAN[(KEY_ENTER, False, False)] = "\n"


def decode_german(strokes):
    """The text the evdev key stream `strokes` ((code, value) pairs) types on the German layout;
    fails on a key this table does not know, a key pressed twice or released unpressed, or keys
    still held at the end."""
    held = set()
    text = []
    for code, value in strokes:
        if value == 1:
            if code in held:
                raise AssertionError("key %d pressed while held" % code)
            held.add(code)
            if code in SHIFT_KEYS or code in ALTGR_KEYS:
                continue
            key = (code, bool(held & SHIFT_KEYS), bool(held & ALTGR_KEYS))
            if key not in GERMAN:
                raise AssertionError("key %d (shift %s, altgr %s) is not in the test's German table" % key)
            text.append(GERMAN[key])
        elif value == 0:
            if code not in held:
                raise AssertionError("key %d released without being pressed" % code)
            held.remove(code)
        else:
            raise AssertionError("key %d has value %d (autorepeat?)" % (code, value))
    if held:
        raise AssertionError("keys still held at the end: %s" % sorted(held))
    return "".join(text)


def checked_strokes(text, config):
    """The evdev key stream `passtap keyboard --check TEXT --layout de` prints for `text`: each
    "modifiers+key" XKB keycode group as modifiers down in order, the key down and up, the
    modifiers up in reverse (evdev code = XKB keycode - 8)."""
    done = subprocess.run([keyboardrig.PASSTAP, "keyboard", "--config", config, "--layout", "de", "--check", text],
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    if done.returncode != 0:
        raise AssertionError("passtap keyboard --check %r: exit %d: %s" % (text, done.returncode, done.stderr))
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    if lines.get("types") != text or lines.get("layout") != "German":
        raise AssertionError("--check %r printed %r" % (text, done.stdout))
    strokes = []
    for group in lines["keys (XKB keycodes, modifiers+key)"].split():
        codes = [int(keycode) - 8 for keycode in group.split("+")]
        modifiers, key = codes[:-1], codes[-1]
        strokes += [(m, 1) for m in modifiers] + [(key, 1), (key, 0)] + [(m, 0) for m in reversed(modifiers)]
    return strokes


ENTER = [(KEY_ENTER, 1), (KEY_ENTER, 0)]


class KeyboardTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        for binary in (keyboardrig.PASSTAPD, keyboardrig.PASSTAP):
            if not os.access(binary, os.X_OK):
                raise unittest.SkipTest("no %s: run `swift build` first" % binary)
        started = time.monotonic()
        cls.work = tempfile.mkdtemp(prefix="passtap-keyboard-")
        cls.shim = uinput.build_shim(cls.work)
        cls.stack = keyboardrig.VasStack(cls.work, PASSES, timeout=TIMEOUT_S)
        print("\nsetUpClass (shim build, pcscd-rig, virtual iPhone, passtapd): %.2f s" % (time.monotonic() - started),
              file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        cls.stack.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def setUp(self):
        self.started = time.monotonic()
        self.folder = tempfile.mkdtemp(prefix=self._testMethodName + "-", dir=self.work)

    def tearDown(self):
        print("\n%s: %.2f s" % (self._testMethodName, time.monotonic() - self.started), file=sys.stderr)

    def config(self, **settings):
        return write_keyboard_toml(os.path.join(self.folder, "keyboard.toml"), **settings)

    def uinput_client(self, config, count, log_name="uinput.jsonl"):
        """`passtap keyboard --output uinput --layout de --count N` under the shim; its shim log's path."""
        log = os.path.join(self.folder, log_name)
        env = dict(os.environ, LD_PRELOAD=self.shim, PASSTAP_UINPUT_LOG=log)
        client = KeyboardClient(self.stack.socket_path, config, os.path.join(self.folder, "keyboard.log"),
                                ["--output", "uinput", "--layout", "de", "--count", str(count)], env=env,
                                timeout=TIMEOUT_S)
        self.addCleanup(client.stop)
        return client, log

    def assert_device_made_and_destroyed(self, records, client):
        """The shim's log: one uinput fd; open, version, EV_KEY enabled with keys, the setup named
        "PassTap keyboard", create, first; destroy and close last (the process has exited)."""
        self.assertTrue(records, "passtap keyboard never opened /dev/uinput: " + client.text())
        self.assertEqual(len({r["fd"] for r in records}), 1, records[:5])
        ops = [r["op"] for r in records]
        self.assertEqual(ops[:2], ["open", "version"])
        create = ops.index("create")
        setup = [r for r in records[:create] if r["op"] == "setup"]
        self.assertEqual(len(setup), 1, ops[:create])
        self.assertEqual(setup[0]["name"], "PassTap keyboard")
        self.assertEqual(setup[0]["bustype"], BUS_VIRTUAL)
        self.assertIn(EV_KEY, [r["value"] for r in records[:create] if r["op"] == "set_evbit"])
        keybits = {r["value"] for r in records[:create] if r["op"] == "set_keybit"}
        self.assertTrue({KEY_ENTER, 42, 100, 16, 21, 44} <= keybits, sorted(keybits))
        self.assertNotIn("event", ops[:create])
        self.assertEqual(ops[-2:], ["destroy", "close"])
        self.assertFalse([r for r in records if r["op"] in ("unknown_ioctl", "rejected_write")], records)
        return keybits

    def test_1_uinput_types_the_pass_on_the_german_layout(self):
        message = MEMBER[1]
        config = self.config(output="uinput", layout="de", allowed="".join(sorted(set(message))), max_length=32,
                             key_delay_ms=1, suffix="enter")
        expected = checked_strokes(message, config) + ENTER
        client, log = self.uinput_client(config, 1)
        client.wait_lines(r"^passtap keyboard: subscribed to ")
        self.assertEqual(self.stack.tap(MEMBER[0]), message)
        self.assertEqual(client.wait_exit(), 0, client.text())
        self.assertEqual(client.matching(r"typed|refused"),
                         ["passtap keyboard: typed a vas read, %d characters, on the German layout" % len(message)])
        records = uinput.read_log(log)
        keybits = self.assert_device_made_and_destroyed(records, client)
        strokes = uinput.key_strokes(records)
        self.assertIsNone(uinput.check_syn_after_each_key(records))
        self.assertEqual(strokes, expected)
        self.assertTrue({code for code, _ in strokes} <= keybits)
        # Independently of --check: the recorded stream read back with the test's own German table.
        self.assertEqual(decode_german(strokes), message + "\n")
        # Only key events and their reports between create and destroy.
        ops = [r["op"] for r in records]
        self.assertEqual(set(ops[ops.index("sysname") + 1:ops.index("destroy")]), {"event"})

    def test_2_hostile_messages_are_refused_not_typed(self):
        config = self.config(output="uinput", layout="de", max_length=20, key_delay_ms=0)
        client, log = self.uinput_client(config, 2)
        client.wait_lines(r"^passtap keyboard: subscribed to ")
        self.assertEqual(self.stack.tap(CONTROL[0]), CONTROL[1])
        client.wait_lines(r"refused", 1)
        self.assertEqual(self.stack.tap(LONG[0]), LONG[1])
        self.assertEqual(client.wait_exit(), 0, client.text())
        refused = client.matching(r"typed|refused")
        self.assertEqual(len(refused), 2, client.text())
        self.assertRegex(refused[0], r"^passtap keyboard: refused: .*U\+000A at position 5, not in `allowed`: not typed$")
        self.assertRegex(refused[1], r"^passtap keyboard: refused: .* is %d characters, over max_length = 20: not typed$"
                         % len(LONG[1]))
        text = client.text()
        for secret in ("rm -rf", CONTROL[1], LONG[1], "abcdefghijklmnopq", "0042"):
            self.assertNotIn(secret, text)
        records = uinput.read_log(log)
        self.assert_device_made_and_destroyed(records, client)
        self.assertEqual(uinput.events(records), [])

    def test_3_no_replay_before_subscribing_nor_after_a_restart(self):
        # A read passtapd published before the client existed.
        self.assertEqual(self.stack.tap(FIRST[0]), FIRST[1])
        config = self.config(output="uinput", layout="de", key_delay_ms=0)
        client, log = self.uinput_client(config, 2)
        client.wait_lines(r"^passtap keyboard: subscribed to ")
        self.assertEqual(self.stack.tap(SECOND[0]), SECOND[1])
        client.wait_lines(r"typed|refused", 1)
        self.assertEqual(decode_german(uinput.key_strokes(uinput.read_log(log))), SECOND[1] + "\n")

        self.stack.restart_daemon()
        client.wait_lines(r"^passtap keyboard: subscribed to ", 2)
        self.assertEqual(len(client.matching(r"connecting again in 1 s")), 1, client.text())
        self.assertEqual(self.stack.tap(THIRD[0]), THIRD[1])
        self.assertEqual(client.wait_exit(), 0, client.text())
        self.assertEqual(client.matching(r"typed|refused"), [
            "passtap keyboard: typed a vas read, %d characters, on the German layout" % len(SECOND[1]),
            "passtap keyboard: typed a vas read, %d characters, on the German layout" % len(THIRD[1])])
        records = uinput.read_log(log)
        self.assert_device_made_and_destroyed(records, client)
        self.assertIsNone(uinput.check_syn_after_each_key(records))
        self.assertEqual(decode_german(uinput.key_strokes(records)), SECOND[1] + "\n" + THIRD[1] + "\n")

    def test_4_x11_types_the_template_into_a_focused_chromium_field(self):
        expected = "M:member-0042@zy"
        config = self.config(output="x11", prefix="M:", template="member-{value}", cut_separator="-", cut_field=1,
                             suffix="none", key_delay_ms=1)
        with xsession.Xvfb() as xvfb:
            xvfb.set_layout("de")
            with xsession.ChromiumPage(xvfb, timeout=TIMEOUT_S) as page:
                self.assertEqual(page.value(), "")
                client = KeyboardClient(self.stack.socket_path, config, os.path.join(self.folder, "keyboard.log"),
                                        ["--count", "1"], env=xvfb.env(), timeout=TIMEOUT_S)
                self.addCleanup(client.stop)
                client.wait_lines(r"^passtap keyboard: subscribed to .*; typing with x11$")
                self.assertEqual(self.stack.tap(MEMBER[0]), MEMBER[1])
                self.assertEqual(client.wait_exit(), 0, client.text())
                self.assertEqual(client.matching(r"typed|refused"),
                                 ["passtap keyboard: typed a vas read, %d characters, on the German layout" % len(expected)])
                self.assertEqual(page.wait_value(expected), expected, client.text())


if __name__ == "__main__":
    unittest.main()
