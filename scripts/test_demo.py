#!/usr/bin/env python3
"""The README's first command as a newcomer runs it: `scripts/demo`, then Ctrl-C.

Starts the real demo (its pcscd, virtual iPhone and Android phone, tag, emulated PN532s, passtapd
and `passtap watch`) in a process group of its own, as a terminal runs a command, and checks that:

- it prints the dashboard's address (which serves the sign-in page) and its demo-only token, and
  `passtap watch` prints a read of each device: the iPhone on Virtual PCD 00 00, the Android phone
  on Virtual PCD 00 01 and the tag on the emulated PN532 pn532-tag;
- Ctrl-C (SIGINT to the whole group, as a terminal sends it) ends it quietly: no Python traceback
  and no "passtapd closed the connection" from the watch, the demo ends as interrupted by SIGINT
  (130 to a shell), and no pcscd is left.

About 6 s after the build (the demo runs `swift build` itself: a no-op once built). Takes the
pcscd lock ($TMPDIR/passtap-pcscd.lock) as the integration tests do.
Run from the repository root: python3 -m unittest scripts/test_demo.py
"""

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from passtaprig.vcard import PcscdLock  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKEN_FILE = "/tmp/passtap-demo/web/demo.token"
# The reader of each demo device, as `passtap watch` prints it in a read.result line.
READERS = ["[pcsc:Virtual PCD 00 00]", "[pcsc:Virtual PCD 00 01]", "[nfc:pn532_uart:/tmp/passtap-demo/pn532-tag]"]
# The demo's build is a no-op after scripts/test's; a cold one is not this test's business.
START_S = 60
STOP_S = 15


def restore_sigint():
    """SIGINT at its default in the demo, even when this test was started with it ignored (a
    background job of a script): bash cannot trap a signal ignored when it started."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class DemoTests(unittest.TestCase):
    def setUp(self):
        # One pcscd per machine: the same lock as the integration tests, the dashboard's and the benches.
        self.addCleanup(PcscdLock().acquire().release)
        # The last holder's pcscd may take a moment to go (pcscd-rig stop waits up to 3 s).
        deadline = time.monotonic() + 5
        while self.pcscd_runs() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.stderr = tempfile.TemporaryFile(mode="w+")
        self.addCleanup(self.stderr.close)

    def read_until_every_reader(self, process, deadline):
        """The demo's stdout up to the first read.result line of each reader (or the deadline)."""
        output = b""
        while time.monotonic() < deadline:
            lines = output.decode("utf-8", "replace").splitlines()
            if all(any(" read.result " + reader in line for line in lines) for reader in READERS):
                break
            ready, _, _ = select.select([process.stdout], [], [], max(deadline - time.monotonic(), 0))
            chunk = os.read(process.stdout.fileno(), 65536) if ready else b""
            if not chunk:
                break
            output += chunk
        return output.decode("utf-8", "replace")

    def test_ctrl_c_ends_the_demo_quietly_after_it_showed_every_device_and_the_dashboard(self):
        process = subprocess.Popen(["scripts/demo"], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=self.stderr, start_new_session=True, preexec_fn=restore_sigint)
        self.addCleanup(self.stop, process)
        shown = self.read_until_every_reader(process, time.monotonic() + START_S)
        for reader in READERS:
            self.assertIn(" read.result " + reader, shown, "no read on %s in %d s; stderr: %s" % (reader, START_S, self.stderr_text()))

        # The address it prints serves the dashboard's sign-in page.
        with urllib.request.urlopen("http://127.0.0.1:8941/", timeout=5) as page:
            self.assertEqual(page.status, 200)
            self.assertIn('id="token-name"', page.read().decode("utf-8", "replace"))

        os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: the terminal signals the foreground group
        status = process.wait(timeout=STOP_S)
        rest = process.stdout.read().decode("utf-8", "replace")
        stderr = self.stderr_text()
        self.assertNotIn("Traceback", stderr + rest)
        self.assertNotIn("closed the connection", stderr + rest)
        self.assertEqual(status, -signal.SIGINT, "the demo should end as interrupted (130); stderr: %s" % stderr)
        self.assertIn("demo: stopped pcscd", stderr)
        with open(TOKEN_FILE) as handle:
            token = handle.read().strip()
        self.assertIn("open http://127.0.0.1:8941/ and sign in with the token name demo", stderr)
        self.assertIn("demo: token %s\n" % token, stderr)
        self.assertFalse(self.pcscd_runs(), "a pcscd is left")

    @staticmethod
    def pcscd_runs():
        return subprocess.run(["pidof", "pcscd"], capture_output=True).returncode == 0

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read()

    @staticmethod
    def stop(process):
        """After a failure: SIGTERM to the demo (its cleanup stops the rest), then SIGKILL."""
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=STOP_S)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        process.stdout.close()


if __name__ == "__main__":
    unittest.main()
