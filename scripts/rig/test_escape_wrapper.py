"""The rig's escape reader (ifd_escape_wrapper.c) through the real pcscd: SCardControl on a direct
connection reaches the wrapper, which answers as an ACR1252U behind libccid, or lists no escape
feature and refuses escapes (libccid without ifdDriverOptions 0x0001). Starts the machine's one
pcscd, under the pcscd lock (passtaprig.vcard.PcscdLock)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from passtaprig.vcard import PcscdLock  # noqa: E402
RIG = os.path.join(HERE, "pcscd-rig")
PROBE = os.path.join(HERE, "escape_probe.py")
DEADLINE_S = 20


class EscapeWrapperTests(unittest.TestCase):
    def rig(self, mode):
        """Starts pcscd with the escape reader in `mode`; its folder."""
        folder = tempfile.mkdtemp(prefix="passtap-escape-")
        self.addCleanup(PcscdLock().acquire().release)
        env = dict(os.environ, PASSTAP_RIG_ESCAPE=mode)
        subprocess.run([RIG, "start", folder], env=env, check=True, timeout=DEADLINE_S, stdout=subprocess.DEVNULL)
        self.addCleanup(subprocess.run, [RIG, "stop", folder], timeout=DEADLINE_S)
        return folder

    def probe(self):
        done = subprocess.run(["/usr/bin/python3", PROBE], check=True, timeout=DEADLINE_S, capture_output=True, text=True)
        return json.loads(done.stdout)

    def test_libccid_lists_its_escape_and_the_reader_answers_it(self):
        folder = self.rig("libccid")
        answers = self.probe()
        self.assertEqual(answers["reader"], "ACS ACR1252 1S CL Reader 00 00")
        self.assertEqual(answers["connect"], 0)
        # FEATURE_CCID_ESC_COMMAND (0x13), 4 bytes: SCARD_CTL_CODE(1).
        self.assertEqual(answers["features"], [0, "130442000001"])
        self.assertEqual(answers["led"], [0, "E10000000102"])
        self.assertEqual(answers["defaults"], [0, "E100000001FB"])
        with open(os.path.join(folder, "escape.log")) as log:
            self.assertEqual(log.read().split("\n")[:3], ["42000D48 ", "42000001 E00000290102", "42000001 E000002100"])

    def test_hidden_lists_no_escape_and_refuses_one(self):
        self.rig("hidden")
        answers = self.probe()
        self.assertEqual(answers["features"], [0, ""])
        self.assertNotEqual(answers["led"][0], 0)


if __name__ == "__main__":
    unittest.main()
