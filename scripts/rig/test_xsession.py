"""A test of the X session harness (scripts/passtaprig/xsession.py) that `passtap keyboard`'s
tests type into: on Xvfb with the German layout, keys sent through XTEST reach the focused field
of a headful Chromium, and the field's value is read back through Selenium. xdotool is the typist
here, a stand-in for passtap keyboard, so that the harness is tested apart from our code.

Run from the repository root: python3 -m unittest scripts/rig/test_xsession.py
"""

import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from passtaprig.xsession import ChromiumPage, Xvfb  # noqa: E402

# Every wait in this test ends: a hang is a failure after this many seconds.
DEADLINE_S = 30


class XSessionTests(unittest.TestCase):
    def test_keys_typed_on_a_german_layout_land_in_the_focused_field(self):
        with Xvfb() as xvfb:
            xvfb.set_layout("de")
            with ChromiumPage(xvfb, timeout=DEADLINE_S) as page:
                # "z" is a different key on the German layout, and "@" is AltGr+Q: the typist
                # has to use the server's keymap, not the US one, to get both right.
                subprocess.run(["xdotool", "type", "--delay", "20", "a@z"], env=xvfb.env(), check=True,
                               timeout=DEADLINE_S)
                self.assertEqual(page.wait_value("a@z", timeout=5), "a@z")


if __name__ == "__main__":
    unittest.main()
