#!/usr/bin/env python3
"""The dashboard in real Chromium, on the real stack.

A private pcscd with vsmartcard-vpcd (scripts/rig/pcscd-rig), our virtual iPhone with one Wallet
pass (scripts/rig/virtual_card.py --phone), and the built passtapd (.build/debug/passtapd) with
`[web] listen` on a free port and two tokens: `till` (observe + read) and `wall` (observe).
Headless Chromium (Debian's chromium and chromium-driver, driven by PyPI's selenium) then:

- logs in with the `read` token, sees the reader, a VAS tap appear with its message, the reader's
  tap count and the duration histogram; with the `observe` token sees the tap without the message;
- makes no request to any other origin (Chrome's DevTools Network events, from its performance log);
- follows a restarted passtapd: reconnects by itself and starts afresh (a new instance);
- from a page on a second local origin (a Python http.server on another port) that runs
  `new WebSocket("ws://127.0.0.1:PORT/rpc")` and sends `auth` with a valid token, never
  authenticates and receives no event.

Screenshots go to a temporary directory (kept, and printed). Takes the pcscd lock
($TMPDIR/passtap-pcscd.lock) as the integration tests do. Run: python3 -m unittest scripts/test_dashboard.py
(after `swift build`). PASSTAP_DASHBOARD_SCREENSHOT=PATH also writes the read token's view there.
"""
import base64
import fcntl
import http.server
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PASSTAPD = os.path.join(ROOT, ".build/debug/passtapd")
RIG = os.path.join(ROOT, "scripts/rig/pcscd-rig")
READER = "Virtual PCD 00 00"
PASS_TYPE_ID = "pass.com.passtap.dashboard-test"
# Markup in the message: the page must show it as text, never parse it.
MESSAGE = "member <b id=\"injected\">0042</b>"
TIMEOUT_S = 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, what, timeout=TIMEOUT_S):
    """Polls `predicate` until it is true; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("timed out after %d s waiting for %s" % (timeout, what))


class Card:
    """The virtual iPhone's control socket (virtual_card.py --control)."""

    def __init__(self, path):
        self.path = path

    def command(self, line):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(TIMEOUT_S)
            s.connect(self.path)
            with s.makefile("rw") as f:
                f.write(line + "\n")
                f.flush()
                answer = json.loads(f.readline())
        if not answer.get("ok"):
            raise AssertionError("virtual card: %s -> %s" % (line, answer))
        return answer


def write_secret(path, secret):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(secret + "\n")


def write_key_and_phone(work):
    """A merchant key (0600, as passtapd demands) and a phone file with its pass."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = os.path.join(work, "merchant.pem")
    pem = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    with open(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as f:
        f.write(pem)
    phone = os.path.join(work, "phone.json")
    with open(phone, "w") as f:
        json.dump({"wallet": "ApplePay", "passes": [{"pass_type_id": PASS_TYPE_ID, "key": key, "message": MESSAGE}]}, f)
    return key, phone


class OtherOrigin:
    """A second local origin: http.server on another port, serving one page that opens the
    dashboard's /rpc with a valid token and records everything that happens to it."""

    PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>other origin</title></head><body>
<script>
window.seen = {opened: false, closed: false, errored: false, messages: []};
const ws = new WebSocket("ws://127.0.0.1:%(port)d/rpc");
ws.onopen = () => {
  window.seen.opened = true;
  ws.send(JSON.stringify({jsonrpc: "2.0", id: 1, method: "auth", params: {token: %(token)s}}));
  ws.send(JSON.stringify({jsonrpc: "2.0", id: 2, method: "events.subscribe"}));
};
ws.onmessage = (m) => window.seen.messages.push(m.data);
ws.onerror = () => { window.seen.errored = true; };
ws.onclose = () => { window.seen.closed = true; };
</script></body></html>
"""

    def __init__(self, web_port, token):
        page = (self.PAGE % {"port": web_port, "token": json.dumps(token)}).encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class DashboardTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(PASSTAPD, os.X_OK):
            raise unittest.SkipTest("no %s: run `swift build` first" % PASSTAPD)
        cls.work = tempfile.mkdtemp(prefix="passtap-dashboard-")
        cls.screenshots = tempfile.mkdtemp(prefix="passtap-dashboard-shots-")
        cls.processes = []
        cls.rig_started = False
        # One pcscd per machine: the same lock as the integration tests and the benches.
        cls.lock = open(os.path.join(os.environ.get("TMPDIR", "/tmp"), "passtap-pcscd.lock"), "a")
        fcntl.flock(cls.lock, fcntl.LOCK_EX)
        try:
            cls.start_stack()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def start_stack(cls):
        work = cls.work
        key, phone = write_key_and_phone(work)
        cls.tokens = {name: base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=") for name in ("till", "wall")}
        for name, secret in cls.tokens.items():
            write_secret(os.path.join(work, name + ".token"), secret)
        cls.port = free_port()
        with open(os.path.join(work, "passtapd.toml"), "w") as f:
            f.write("""[socket]
path = "%(work)s/passtapd.sock"

# Small, so that a page opened after the first tap asks (since 1) for events the daemon no longer
# holds: its events.dropped for that gap must not make the page reconnect.
[events]
buffer = 4

[vas]
enabled = true

[[vas.merchants]]
pass_type_id = "%(pass)s"
keys = ["%(key)s"]

[web]
listen = "127.0.0.1:%(port)d"

[[web.tokens]]
name = "till"
token_file = "%(work)s/till.token"
roles = ["observe", "read"]
origins = []

[[web.tokens]]
name = "wall"
token_file = "%(work)s/wall.token"
roles = ["observe"]
origins = []
""" % {"work": work, "pass": PASS_TYPE_ID, "key": key, "port": cls.port})
        # A pcscd of a test that just released the lock may still be exiting.
        wait_for(lambda: subprocess.run(["pidof", "pcscd"], stdout=subprocess.DEVNULL).returncode != 0,
                 "no other pcscd (pcscd-rig starts one only when none runs)", timeout=600)
        started = subprocess.run([RIG, "start", work], check=True, capture_output=True, text=True).stdout
        cls.rig_started = True
        vpcd = int([l for l in started.splitlines() if l.startswith("port=")][0][5:])
        card_socket = os.path.join(work, "card.sock")
        cls.spawn([sys.executable, os.path.join(ROOT, "scripts/rig/virtual_card.py"), "--control", card_socket,
                   "--port", str(vpcd), "--phone", phone], "card.log")
        wait_for(lambda: os.path.exists(card_socket), "the virtual iPhone's control socket")
        cls.card = Card(card_socket)
        cls.start_daemon()

    @classmethod
    def start_daemon(cls):
        """passtapd, waited for until its web listener accepts connections."""
        cls.daemon = cls.spawn([PASSTAPD, "--config", os.path.join(cls.work, "passtapd.toml")], "passtapd.log")

        def listening():
            if cls.daemon.poll() is not None:
                raise AssertionError("passtapd exited: " + cls.log("passtapd.log"))
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", cls.port)) == 0

        wait_for(listening, "passtapd's web listener on port %d" % cls.port)

    @classmethod
    def spawn(cls, command, log):
        with open(os.path.join(cls.work, log), "w") as stderr:
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
        cls.processes.append(process)
        return process

    @classmethod
    def log(cls, name):
        with open(os.path.join(cls.work, name)) as f:
            return f.read()[-3000:]

    @classmethod
    def tearDownClass(cls):
        for process in reversed(cls.processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if cls.rig_started:
            subprocess.run([RIG, "stop", cls.work])
        fcntl.flock(cls.lock, fcntl.LOCK_UN)
        cls.lock.close()
        shutil.rmtree(cls.work, ignore_errors=True)
        print("dashboard screenshots: %s" % cls.screenshots, file=sys.stderr)

    # MARK: Chromium

    def browser(self):
        """A fresh headless Chromium at 1024x600 (its own profile, so its own sessionStorage),
        logging every DevTools Network event."""
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1024,600",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update",
                         "--disable-default-apps", "--disable-sync"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.addCleanup(driver.quit)
        # The kiosk's screen: a 1024x600 viewport (the window size would include the browser's frame).
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": 1024, "height": 600, "deviceScaleFactor": 1, "mobile": False})
        self.network = []
        return driver

    def collect_network(self, driver):
        """Every URL the page asked for so far (requests and WebSockets), from the performance log."""
        for entry in driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            method = message.get("method", "")
            params = message.get("params", {})
            if method == "Network.requestWillBeSent":
                self.network.append(params["request"]["url"])
            elif method == "Network.webSocketCreated":
                self.network.append(params["url"])
        return self.network

    def origin(self):
        return "http://127.0.0.1:%d" % self.port

    def log_in(self, driver, token):
        driver.get(self.origin() + "/")
        field = WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.find_element(By.ID, "token"))
        # Keyboard only: the token field has focus, Enter submits.
        self.assertEqual(driver.switch_to.active_element, field, "the token field has focus")
        field.send_keys(token + Keys.ENTER)
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.find_element(By.ID, "dashboard").is_displayed())

    def text(self, driver, element_id):
        return driver.find_element(By.ID, element_id).text

    def wait_text(self, driver, element_id, needle, what):
        try:
            WebDriverWait(driver, TIMEOUT_S).until(lambda d: needle in self.text(d, element_id))
        except Exception:
            self.fail("%s: %r not in #%s: %r; passtapd log: %s" % (what, needle, element_id, self.text(driver, element_id), self.log("passtapd.log")))

    def tap_rows(self, driver):
        return driver.find_elements(By.CSS_SELECTOR, "#taps tbody tr")

    def next_seq(self):
        """The seq the daemon's next event gets (events.subscribe's next_seq, on its Unix socket)."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(TIMEOUT_S)
            s.connect(os.path.join(self.work, "passtapd.sock"))
            with s.makefile("rw") as f:
                f.write('{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{"kinds":["read.result"]}}\n')
                f.flush()
                return json.loads(f.readline())["result"]["next_seq"]

    def tap(self, driver):
        """One tap of the virtual iPhone; returns its row once the page shows it (a row newer
        than every event before the tap: the page also replays earlier tests' taps)."""
        first = self.next_seq()
        self.card.command("tap")
        try:
            def row(d):
                rows = [r for r in self.tap_rows(d) if int(r.get_attribute("data-seq")) >= first]
                return rows[0] if rows else None
            return WebDriverWait(driver, TIMEOUT_S).until(
                row, "no row for the tap (events from seq %d); the page says: %s" % (first, self.text(driver, "connection")))
        finally:
            self.card.command("remove")

    def assert_same_origin(self, driver):
        urls = self.collect_network(driver)
        self.assertTrue(any(url.startswith("ws://127.0.0.1:%d/rpc" % self.port) for url in urls), urls)
        sockets = [url for url in urls if url.startswith("ws")]
        self.assertEqual(len(sockets), 1, "one WebSocket for the whole visit (no reconnection): %s" % sockets)
        allowed = (self.origin() + "/", "ws://127.0.0.1:%d/" % self.port)
        others = [url for url in urls if not url.startswith(allowed)]
        self.assertEqual(others, [], "requests to another origin")

    # MARK: Tests

    def test_a_read_token_sees_the_reader_and_a_vas_tap_with_its_message(self):
        driver = self.browser()
        self.log_in(driver, self.tokens["till"])
        self.wait_text(driver, "readers", READER, "the reader")
        self.wait_text(driver, "identity", "till", "the token's name")
        self.wait_text(driver, "version", "protocol", "the version")
        row = self.tap(driver)
        self.wait_text(driver, "taps", MESSAGE, "the tap's message")
        self.assertIn("pass", row.text)
        self.assertIn(PASS_TYPE_ID + ": success", row.text)
        # The message is text: its markup was not parsed into an element.
        self.assertEqual(driver.find_elements(By.ID, "injected"), [])
        self.wait_text(driver, "readers", "pass 1", "the reader's tap count")
        self.wait_text(driver, "durations-summary", " session", "the duration histogram")
        self.assertTrue(driver.find_elements(By.CSS_SELECTOR, "#histogram rect"))
        self.assertTrue(driver.execute_script("return sessionStorage.getItem('passtap.token') !== null"))
        self.assertNotIn(self.tokens["till"], driver.current_url)
        # Keyboard: Tab from the top reaches the log-out button, then the scrollable tables.
        path = os.path.join(self.screenshots, "read.png")
        driver.save_screenshot(path)
        if os.environ.get("PASSTAP_DASHBOARD_SCREENSHOT"):
            shutil.copyfile(path, os.environ["PASSTAP_DASHBOARD_SCREENSHOT"])
        # Keyboard: from the log-out button, Tab reaches the readers' and the taps' tables (their
        # scrollable regions), each with a visible outline.
        driver.execute_script("document.getElementById('logout').focus()")
        order = []
        for _ in range(2):
            ActionChains(driver).send_keys(Keys.TAB).perform()
            active = driver.switch_to.active_element
            order.append(active.get_attribute("aria-labelledby"))
            self.assertNotEqual(driver.execute_script("return getComputedStyle(document.activeElement).outlineStyle"), "none")
        self.assertEqual(order, ["readers-title", "taps-title"], "the keyboard's way through the page")
        self.assert_same_origin(driver)
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE" and "favicon" not in e["message"]]
        self.assertEqual(errors, [], "console errors (a CSP violation would be one)")

    def test_an_observe_token_sees_the_tap_without_its_message(self):
        driver = self.browser()
        self.log_in(driver, self.tokens["wall"])
        self.wait_text(driver, "readers", READER, "the reader")
        # Events 1.. are older than the 4 the daemon keeps by now: the page was told of the gap.
        self.assertGreater(self.next_seq(), 5)
        row = self.tap(driver)
        self.wait_text(driver, "taps", "withheld", "the withheld pass")
        self.assertIn("Connected as wall", self.text(driver, "connection"))
        self.assertIn(PASS_TYPE_ID + ": success", row.text)
        self.assertNotIn("0042", driver.find_element(By.TAG_NAME, "body").text)
        driver.save_screenshot(os.path.join(self.screenshots, "observe.png"))
        self.assert_same_origin(driver)

    def test_a_wrong_token_is_refused_and_asked_again(self):
        driver = self.browser()
        self.log_in_refused(driver, "x" * 43)

    def log_in_refused(self, driver, token):
        driver.get(self.origin() + "/")
        field = WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.find_element(By.ID, "token"))
        field.send_keys(token + Keys.ENTER)
        self.wait_text(driver, "login-error", "refused", "the refusal")
        self.assertFalse(driver.find_element(By.ID, "dashboard").is_displayed())
        self.assertIsNone(driver.execute_script("return sessionStorage.getItem('passtap.token')"))

    def test_a_page_of_another_local_origin_never_authenticates(self):
        other = OtherOrigin(self.port, self.tokens["till"])
        self.addCleanup(other.stop)
        driver = self.browser()
        driver.get("http://127.0.0.1:%d/" % other.port)
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.execute_script("return window.seen.closed"))
        seen = driver.execute_script("return window.seen")
        self.assertEqual(
            [m for m in seen["messages"] if '"result"' in m or '"method":"event"' in m], [],
            "the other origin got an answer or an event: %s" % seen)

    def test_z_the_page_follows_a_restarted_daemon(self):
        """Last (z): it restarts the daemon the other tests share."""
        driver = self.browser()
        self.log_in(driver, self.tokens["till"])
        self.wait_text(driver, "readers", READER, "the reader")
        self.tap(driver)
        self.daemon.terminate()
        self.daemon.wait(timeout=TIMEOUT_S)
        self.wait_text(driver, "connection", "Disconnected", "the page noticing the daemon left")
        self.start_daemon()
        self.wait_text(driver, "connection", "Connected as till", "the page reconnecting with its token")
        # A new instance: the old instance's taps are gone from the page, the new one's appear.
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: len(self.tap_rows(d)) == 0)
        self.wait_text(driver, "readers", READER, "the reader, after the restart")
        row = self.tap(driver)
        self.assertIn(MESSAGE, row.text)
        self.assertEqual(len(self.tap_rows(driver)), 1)
        self.wait_text(driver, "readers", "pass 1", "the new instance's count")
