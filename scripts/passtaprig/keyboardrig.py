"""`passtap keyboard`'s tests on the real stack: a private pcscd with vpcd, the virtual iPhone with
several Apple Wallet passes of one merchant key (one pass type per message, so a test picks the
message a tap carries), the built passtapd with a [vas] merchant per pass and its socket, and
`passtap keyboard` with a keyboard.toml of the test's (Sources/Keyboard/KeyboardSettings.swift).

`VasStack` takes the pcscd lock (`vcard.PcscdLock`, as scripts/test_dashboard.py and the
integration tests do), so only one pcscd runs. Python's `cryptography` is needed for the key."""

import json
import os
import re
import subprocess

from . import ROOT
from .daemon import Daemon
from .keys import write_p256_key
from .vcard import PcscdLock, PcscdRig, VirtualCard, stop_process
from .waits import Failure, wait_for

PASSTAPD = os.path.join(ROOT, ".build/debug/passtapd")
PASSTAP = os.path.join(ROOT, ".build/debug/passtap")


def write_vas_phone(work, passes, key=None):
    """A merchant key (made unless `key` names one) and a phone file in `work` whose passes are
    `passes`, (pass_type_id, message) pairs, all under that key; returns (key, phone path)."""
    key = key or write_p256_key(os.path.join(work, "merchant.pem"))
    phone = os.path.join(work, "phone.json")
    with open(phone, "w") as f:
        json.dump({"wallet": "ApplePay",
                   "passes": [{"pass_type_id": pass_type_id, "key": key, "message": message}
                              for pass_type_id, message in passes]}, f)
    return key, phone


def write_vas_config(path, socket_path, key, pass_type_ids):
    """A passtapd.toml at `path`: its socket at `socket_path`, [vas] on, one merchant per pass
    type, each with the private key `key`."""
    merchants = "".join('\n[[vas.merchants]]\npass_type_id = %s\nkeys = [%s]\n' % (json.dumps(p), json.dumps(key))
                        for p in pass_type_ids)
    with open(path, "w") as f:
        f.write('[socket]\npath = %s\n\n[vas]\nenabled = true\n%s' % (json.dumps(socket_path), merchants))
    return path


def toml_value(value):
    """A Python value as TOML: str (a basic string; JSON's escapes are TOML's), int, list of str."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError("no TOML for %r" % (value,))


def write_keyboard_toml(path, **settings):
    """keyboard.toml at `path`: a [keyboard] table with `settings` (its keys as in the file:
    output, layout, prefix, template, suffix, allowed, max_length, key_delay_ms...)."""
    with open(path, "w") as f:
        f.write("[keyboard]\n" + "".join("%s = %s\n" % (k, toml_value(v)) for k, v in settings.items()))
    return path


class VasStack:
    """pcscd-rig, the virtual iPhone with `passes` ((pass_type_id, message) pairs) and passtapd
    with a merchant per pass, in `work`, under the pcscd lock; `tap` presents one pass, `restart_daemon`
    stops and starts passtapd on the same socket, `stop` ends it all. `daemon` is a
    `passtaprig.daemon.Daemon` subscribed to read.result."""

    def __init__(self, work, passes, timeout=15):
        self.work = work
        self.passes = list(passes)
        self.timeout = timeout
        self.rig = PcscdRig(work)
        self.card = None
        self.daemon = None
        self.socket_path = os.path.join(work, "passtapd.sock")
        self.daemon_starts = 0
        self.lock = PcscdLock().acquire()
        try:
            self._start()
        except BaseException:
            self.stop()
            raise

    def _start(self):
        key, phone = write_vas_phone(self.work, self.passes)
        self.config = write_vas_config(os.path.join(self.work, "passtapd.toml"), self.socket_path, key,
                                       [p for p, _ in self.passes])
        # A pcscd of a test that just released the lock may still be exiting.
        wait_for(lambda: subprocess.run(["pidof", "pcscd"], stdout=subprocess.DEVNULL).returncode != 0,
                 "no other pcscd (pcscd-rig starts one only when none runs)", timeout=60)
        port = self.rig.start()
        self.card_log = open(os.path.join(self.work, "card.log"), "w")
        self.card = VirtualCard(os.path.join(self.work, "card.sock"), port, phone, stdout=subprocess.DEVNULL,
                                stderr=self.card_log, timeout=self.timeout, name="virtual iPhone")
        self.start_daemon()

    def start_daemon(self):
        self.daemon_starts += 1
        self.daemon = Daemon(PASSTAPD, self.config, self.socket_path,
                             os.path.join(self.work, "passtapd-%d.log" % self.daemon_starts), ["read.result"],
                             timeout=self.timeout)

    def restart_daemon(self):
        """passtapd stopped (its clients see the socket close) and started again on the same
        socket."""
        self.daemon.stop()
        self.daemon = None
        wait_for(lambda: not os.path.exists(self.socket_path), "passtapd's socket to go", timeout=self.timeout)
        self.start_daemon()

    def tap(self, pass_type_id):
        """The phone taps with only `pass_type_id`'s pass readable (the others answer 6287, needs
        auth), until passtapd publishes the read; then it leaves the field. Returns the read's
        message (and fails unless it is that pass's)."""
        for other, _ in self.passes:
            self.card.command("needs-auth %s %s" % (other, "off" if other == pass_type_id else "on"))
        self.card.command("tap")
        try:
            event = self.daemon.next_event("read.result")
        finally:
            self.card.command("remove")
        messages = [e.get("message") for e in ((event.get("vas") or {}).get("entries") or []) if e.get("message")]
        expected = dict(self.passes)[pass_type_id]
        if messages != [expected]:
            raise Failure("the tap of %s read %r, not [%r]: %s" % (pass_type_id, messages, expected, json.dumps(event)))
        return messages[0]

    def stop(self):
        if self.daemon is not None:
            self.daemon.stop()
            self.daemon = None
        if self.card is not None:
            self.card.stop()
            self.card = None
            self.card_log.close()
        self.rig.stop()
        self.lock.release()


class KeyboardClient:
    """`passtap keyboard --socket SOCKET --config CONFIG` and `arguments`, its stderr in `log_path`,
    with `env` (e.g. LD_PRELOAD of the uinput shim, or DISPLAY). `stop` ends it when it still runs."""

    def __init__(self, socket_path, config, log_path, arguments=(), env=None, timeout=15):
        self.log_path = log_path
        self.timeout = timeout
        with open(log_path, "w") as log:
            self.process = subprocess.Popen([PASSTAP, "keyboard", "--socket", socket_path, "--config", config]
                                            + list(arguments), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            env=env)

    def lines(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read().splitlines()

    def text(self):
        with open(self.log_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def matching(self, pattern):
        return [line for line in self.lines() if re.search(pattern, line)]

    def wait_lines(self, pattern, count=1, timeout=None):
        """Waits until `count` lines match `pattern` (a regular expression); fails when the
        client exits first (unless they are there) or the deadline passes. Returns them."""
        def enough():
            if len(self.matching(pattern)) >= count:
                return True
            if self.process.poll() is not None:
                raise Failure("passtap keyboard exited (%s) before %d line(s) matching %r: %s" % (
                    self.process.returncode, count, pattern, self.text()))
            return False

        try:
            wait_for(enough, "%d line(s) of passtap keyboard matching %r" % (count, pattern),
                     timeout=timeout or self.timeout)
        except Failure as failure:
            raise Failure("%s; its stderr: %s" % (failure, self.text())) from None
        return self.matching(pattern)

    def wait_exit(self, timeout=None):
        """The exit status, once it exits within the deadline."""
        try:
            return self.process.wait(timeout=timeout or self.timeout)
        except subprocess.TimeoutExpired:
            raise Failure("passtap keyboard still runs after %g s: %s" % (timeout or self.timeout, self.text())) from None

    def stop(self):
        stop_process(self.process)
