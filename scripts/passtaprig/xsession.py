"""A private X session for `passtap keyboard`'s tests: a virtual X server (`Xvfb`) with the
keyboard layout a test asks for, and a headful Chromium on it (`ChromiumPage`) whose one text
field has the X input focus, so that typed keys land where a test can read them.

There is no window manager: nothing gives a new window the focus, so `ChromiumPage` does it.
Needs Xvfb (xvfb), setxkbmap (x11-xkb-utils), xdotool, and for the page chromium,
chromium-driver and PyPI's selenium (imported only when a page opens)."""

import os
import select
import subprocess
import tempfile
import time
import urllib.parse

from .vcard import stop_process
from .waits import Failure, wait_for

# The page: one field, focused as it loads and once more by a click (autofocus alone is not
# applied to a page loaded in a window that has no focus yet).
PAGE = '<!doctype html><title>passtap keyboard</title><input id="field" autofocus autocomplete="off">'


class Xvfb:
    """Xvfb on a free display number, as a context manager: `display` (":N") once it accepts
    connections, `env()` for its clients, `set_layout()`; ended on exit."""

    def __init__(self, screen="1024x768x24", timeout=10):
        self.screen = screen
        self.timeout = timeout
        self.process = None
        self.display = None

    def __enter__(self):
        # -displayfd: Xvfb picks the first display number not in use (its socket in /tmp/.X11-unix
        # and its /tmp/.X<n>-lock file both free), taking both itself, so two tests starting at
        # once cannot pick the same one; it writes the number once it accepts connections.
        # -noreset: without it the server resets its keymap to "us" when its last client leaves,
        # which undoes setxkbmap (a client that exits) before the next client connects.
        # Its messages go to a file, not a pipe: xkbcomp's warnings on every setxkbmap would fill
        # a pipe nobody reads, and block the server.
        self.log = tempfile.TemporaryFile()
        read_end, write_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                ["Xvfb", "-displayfd", str(write_end), "-screen", "0", self.screen, "-nolisten", "tcp", "-noreset"],
                pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=self.log)
            os.close(write_end)
            write_end = None
            number = self._read_display_number(read_end)
        except BaseException:
            if write_end is not None:
                os.close(write_end)
            self.stop()
            raise
        finally:
            os.close(read_end)
        self.display = ":%d" % number
        return self

    def _read_display_number(self, read_end):
        deadline = time.monotonic() + self.timeout
        text = b""
        while not text.endswith(b"\n"):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Failure("timed out after %g s waiting for Xvfb's display number" % self.timeout)
            if not select.select([read_end], [], [], remaining)[0]:
                continue
            chunk = os.read(read_end, 16)
            if not chunk:
                self.process.wait(timeout=self.timeout)
                self.log.seek(0)
                raise Failure("Xvfb exited (%s) before it took a display: %s" % (
                    self.process.returncode, self.log.read().decode(errors="replace").strip()))
            text += chunk
        return int(text)

    def env(self):
        """os.environ for a client of this server: DISPLAY set, and WAYLAND_DISPLAY removed so
        that a toolkit that prefers Wayland (Chromium's Ozone) cannot open a window elsewhere."""
        env = dict(os.environ, DISPLAY=self.display)
        env.pop("WAYLAND_DISPLAY", None)
        return env

    def set_layout(self, layout, variant=""):
        """setxkbmap `layout` (and `variant`) on this server's core keyboard; fails unless the
        server then reports that layout."""
        command = ["setxkbmap", "-display", self.display, "-layout", layout]
        if variant:
            command += ["-variant", variant]
        done = subprocess.run(command, capture_output=True, text=True, timeout=self.timeout)
        if done.returncode != 0:
            raise Failure("%s: exit %d: %s" % (" ".join(command), done.returncode, done.stderr.strip()))
        query = subprocess.run(["setxkbmap", "-display", self.display, "-query"],
                               check=True, capture_output=True, text=True, timeout=self.timeout).stdout
        settings = dict(line.split(":", 1) for line in query.splitlines() if ":" in line)
        got = (settings.get("layout", "").strip(), settings.get("variant", "").strip())
        if got != (layout, variant):
            raise Failure("setxkbmap %s %s: the server reports %r" % (layout, variant, got))

    def stop(self):
        if self.process is not None:
            stop_process(self.process)
            self.process = None
        if getattr(self, "log", None) is not None:
            self.log.close()
            self.log = None

    def __exit__(self, *exc):
        self.stop()


class ChromiumPage:
    """A headful Chromium on `xvfb` (Debian's chromium and chromium-driver through Selenium, as
    scripts/test_dashboard.py starts them, but with a window) showing one `<input id="field">`
    that has the page's focus, in a top-level window (`window_id`) that has the X input focus.
    A context manager; `startup_s` is how long it took to get there."""

    def __init__(self, xvfb, width=800, height=600, timeout=30):
        self.xvfb = xvfb
        self.width = width
        self.height = height
        self.timeout = timeout
        self.driver = None
        self.window_id = None
        self.startup_s = None

    def __enter__(self):
        started = time.monotonic()
        try:
            self._start()
            self._open_page()
            self._focus_window()
        except BaseException:
            self.stop()
            raise
        self.startup_s = time.monotonic() - started
        return self

    def _start(self):
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile = tempfile.TemporaryDirectory(prefix="passtap-chromium-")
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        # --ozone-platform=x11: the X server named by DISPLAY, whatever the environment says
        # about Wayland. --window-position: the window's top left is the screen's, so the pointer
        # (in the middle of the screen) is over it. --password-store=basic: no keyring, whose
        # unlock prompt would be a window of its own.
        for argument in ("--no-sandbox", "--disable-dev-shm-usage", "--ozone-platform=x11",
                         "--window-size=%d,%d" % (self.width, self.height), "--window-position=0,0",
                         "--user-data-dir=" + self.profile.name, "--password-store=basic", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", "--disable-default-apps",
                         "--disable-sync", "--disable-gpu"):
            options.add_argument(argument)
        # chromedriver passes its environment on to Chromium: that is where DISPLAY reaches it.
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver", env=self.xvfb.env()), options=options)

    def _open_page(self):
        from selenium.webdriver.common.by import By

        self.driver.get("data:text/html;charset=utf-8," + urllib.parse.quote(PAGE))
        self.field = self.driver.find_element(By.ID, "field")
        self.field.click()
        wait_for(lambda: self.driver.switch_to.active_element == self.field, "the field to have the page's focus",
                 timeout=self.timeout)

    def _focus_window(self):
        # --sync waits without a limit of its own: the subprocess timeout is its deadline.
        # --onlyvisible: not the 10x10 unmapped window Chromium also makes with that class. The
        # display is this Chromium's alone, and it has one browser window.
        found = self._xdotool("search", "--sync", "--onlyvisible", "--class", "chromium").split()
        if len(found) != 1:
            raise Failure("%d visible Chromium windows on %s, not one" % (len(found), self.xvfb.display))
        self.window_id = int(found[0])
        self._xdotool("windowfocus", "--sync", str(self.window_id))
        # The X focus is the window's; the page knows it has the focus once Chromium handled the
        # FocusIn, and only then do keys reach the field.
        wait_for(lambda: self.driver.execute_script("return document.hasFocus()"),
                 "Chromium's page to have the focus after windowfocus", timeout=self.timeout)

    def _xdotool(self, *arguments):
        try:
            return subprocess.run(("xdotool",) + arguments, env=self.xvfb.env(), check=True, capture_output=True,
                                  text=True, timeout=self.timeout).stdout
        except subprocess.TimeoutExpired:
            raise Failure("timed out after %g s: xdotool %s" % (self.timeout, " ".join(arguments))) from None

    def value(self):
        """The field's value, as the page has it."""
        return self.field.get_property("value")

    def wait_value(self, expected, timeout=5):
        """Polls the field until its value is `expected` or `timeout` seconds pass; returns the
        last value read either way (a test compares it, and shows it when it differs)."""
        try:
            wait_for(lambda: self.value() == expected, "the field to hold %r" % expected, timeout=timeout)
        except Failure:
            pass
        return self.value()

    def stop(self):
        if self.driver is not None:
            self.driver.quit()
            self.driver = None
        if getattr(self, "profile", None) is not None:
            self.profile.cleanup()
            self.profile = None

    def __exit__(self, *exc):
        self.stop()
