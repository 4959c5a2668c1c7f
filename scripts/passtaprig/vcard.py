"""The virtual reader rig from Python: a private pcscd with the vsmartcard-vpcd readers
(scripts/rig/pcscd-rig), our virtual card or phone on one of them (scripts/rig/virtual_card.py in
test mode), and the card's control socket. scripts/rig/README.md documents the rig itself."""

import fcntl
import json
import os
import socket
import subprocess
import sys

from . import RIG_DIR
from .waits import Failure, wait_for

PCSCD_RIG = os.path.join(RIG_DIR, "pcscd-rig")
VIRTUAL_CARD = os.path.join(RIG_DIR, "virtual_card.py")


class PcscdLock:
    """The machine's one pcscd, taken in turn: the lock file $TMPDIR/passtap-pcscd.lock that the
    integration tests, the benches and the Python tests hold while their pcscd runs. `acquire`
    waits for it; `release` gives it back (and does nothing when it is not held)."""

    PATH = os.path.join(os.environ.get("TMPDIR", "/tmp"), "passtap-pcscd.lock")

    def __init__(self):
        self.file = None

    def acquire(self):
        self.file = open(self.PATH, "a")
        fcntl.flock(self.file, fcntl.LOCK_EX)
        return self

    def release(self):
        if self.file is not None:
            fcntl.flock(self.file, fcntl.LOCK_UN)
            self.file.close()
            self.file = None


class PcscdRig:
    """A private pcscd (`pcscd-rig start DIR`) whose two vpcd readers listen on `port` and
    `port + 1`; `stop` ends it (and does nothing when it never started)."""

    def __init__(self, work):
        self.work = work
        self.port = None

    def start(self):
        """Starts pcscd and returns the first reader's vpcd port, once vpcd listens."""
        started = subprocess.run([PCSCD_RIG, "start", self.work], check=True, capture_output=True, text=True).stdout
        self.port = int([line for line in started.splitlines() if line.startswith("port=")][0][5:])
        return self.port

    def stop(self):
        if self.port is not None:
            subprocess.run([PCSCD_RIG, "stop", self.work])
            self.port = None


class CardControl:
    """A control socket of the rig's line protocol (virtual_card.py --control, and the emulated
    PN532's): one JSON answer a line; an answer without "ok" raises `Failure`."""

    def __init__(self, path, timeout=30, name="virtual card"):
        self.path = path
        self.timeout = timeout
        self.name = name

    def command(self, line):
        """Sends one line command ("tap", "remove", "stats"...) and returns its answer."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(self.timeout)
            s.connect(self.path)
            with s.makefile("rw") as f:
                f.write(line + "\n")
                f.flush()
                answer = json.loads(f.readline())
        if not answer.get("ok"):
            raise Failure("%s: %s -> %s" % (self.name, line, answer))
        return answer


class RigProcess:
    """A child process of the rig (`self.process`), waited for until it is ready; `stop` ends it."""

    process = None

    @property
    def pid(self):
        return self.process.pid

    def exit_details(self):
        """More words for the failure of a process that exited before it was ready (its log)."""
        return ""

    def wait_ready(self, ready, what, timeout):
        """Waits until `ready()`, or fails (`Failure`) when the process exits first or `timeout`
        seconds pass; on any failure stops the process before raising."""
        try:
            wait_for(lambda: ready() or self.process.poll() is not None, what, timeout=timeout)
            if self.process.poll() is not None:
                raise Failure("%s: the process exited (%s)%s" % (what, self.process.returncode, self.exit_details()))
        except BaseException:
            self.stop()
            raise

    def stop(self):
        stop_process(self.process)


class VirtualCard(CardControl, RigProcess):
    """virtual_card.py in test mode on vpcd port `port` (as a phone when `phone` names a phone
    file; `extra`, more of its options), started and waited for until its control socket `control`
    exists; stdout and stderr as subprocess.Popen's. `stop` ends it."""

    def __init__(self, control, port, phone=None, extra=(), stdout=None, stderr=None, timeout=30,
                 name="virtual card"):
        super().__init__(control, timeout, name)
        command = [sys.executable, VIRTUAL_CARD, "--control", control, "--port", str(port)]
        if phone:
            command += ["--phone", phone]
        self.process = subprocess.Popen(command + list(extra), stdout=stdout, stderr=stderr)
        self.wait_ready(lambda: os.path.exists(control), "the " + name, timeout)


def stop_process(process, timeout=10):
    """SIGTERM, then SIGKILL after `timeout` seconds; waits for the process either way."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
