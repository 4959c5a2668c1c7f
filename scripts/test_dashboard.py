#!/usr/bin/env python3
"""The dashboard in real Chromium, on the real stack.

A private pcscd with vsmartcard-vpcd (scripts/rig/pcscd-rig), our virtual iPhone with one Wallet
pass (scripts/rig/virtual_card.py --phone), and the built passtapd (.build/debug/passtapd) with
`[web] listen` on a free port and two tokens: `till` (observe + read) and `wall` (observe).
Headless Chromium (Debian's chromium and chromium-driver, driven by PyPI's selenium) then:

- logs in with the `read` token's name and secret, sees the reader, a VAS tap appear with its
  message, the reader's tap count and the duration histogram; with the `observe` token sees the tap
  without the message;
- keeps no raw token: nothing in sessionStorage or localStorage, and in IndexedDB only a
  non-extractable CryptoKey (no string holding the secret, and exportKey refused);
- makes no request to any other origin (Chrome's DevTools Network events, from its performance log);
- follows a restarted passtapd: reconnects by itself and starts afresh (a new instance);
- refuses a program that took the port while passtapd was down (scripts/rig/fake_rpc_server.py,
  without the token): the page sends it nothing after auth.hello and says why;
- from a page on a second local origin that uses a vendored passtap.js with a valid token, never
  authenticates and receives no event;
- passtap.js computes the handshake's known-answer vector (docs/web.md), and a POS page using it
  (a vendored copy, served by the fake server on another port) refuses a server that cannot prove
  it holds the token, sending it no proof.

Screenshots go to a temporary directory (kept, and printed). Takes the pcscd lock
($TMPDIR/passtap-pcscd.lock) as the integration tests do. Run: python3 -m unittest scripts/test_dashboard.py
(after `swift build`). PASSTAP_DASHBOARD_SCREENSHOT=PATH also writes the kiosk test's view there (1024x600:
the three readers' taps and the forwarding panel).
"""
import base64
import contextlib
import functools
import importlib.machinery
import importlib.util
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import passtaprig  # noqa: E402
from passtaprig import vcard, waits  # noqa: E402
from passtaprig.keys import write_p256_key, write_private_file  # noqa: E402

ROOT = passtaprig.ROOT
_loader = importlib.machinery.SourceFileLoader("fake_rpc_server", os.path.join(ROOT, "scripts/rig/fake_rpc_server.py"))
fake = importlib.util.module_from_spec(importlib.util.spec_from_loader("fake_rpc_server", _loader))
_loader.exec_module(fake)
PASSTAPD = os.path.join(ROOT, ".build/debug/passtapd")
PASSTAP_JS = os.path.join(ROOT, "Sources/PassTapDashboard/Files/passtap.js")
READER = "Virtual PCD 00 00"
ANDROID_READER = "Virtual PCD 00 01"
# The emulated PN532's pty, linked where a real one is (/dev/serial/by-id/...): libnfc reader ids
# are this long, `nfc:pn532_uart:` and the path.
PN532_LINK = "usb-FTDI_FT232R_USB_UART_A50285BI-if00-port0"
COLLECTOR_ID = 20180608
# On the wire (and so on the page) as the daemon publishes it: `object_id` is the daemon's text.
ANDROID_OBJECT_ID = "00000000000000A1"
ANDROID_VALUE = "loyalty <i id=\"injected-android\">0042</i>"
TAG_URI = "https://passtap.example/tag"
SINK = "loyalty-hq"
PASS_TYPE_ID = "pass.com.passtap.dashboard-test"
# Markup in the message: the page must show it as text, never parse it.
MESSAGE = "member <b id=\"injected\">0042</b>"
TIMEOUT_S = 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The rig's wait (scripts/passtaprig/waits.py), polling every 50 ms with this file's deadline.
wait_for = functools.partial(waits.wait_for, timeout=TIMEOUT_S, interval=0.05)


def documented_snippet():
    """The browser snippet of docs/web.md ("The browser client: passtap.js"), which README.md
    repeats: the two must be one and the same."""
    blocks = {}
    for name in ("README.md", "docs/web.md"):
        with open(os.path.join(ROOT, name)) as f:
            text = f.read()
        found = re.findall(r"```js\n(.*?)```", text, re.S)
        blocks[name] = [block for block in found if "connect(" in block]
    if len(blocks["docs/web.md"]) != 1 or blocks["README.md"] != blocks["docs/web.md"]:
        raise AssertionError("README.md and docs/web.md must give the same one passtap.js snippet: %s" % blocks)
    return blocks["docs/web.md"][0]


def write_secret(path, secret):
    write_private_file(path, secret + "\n")


def write_key_and_phone(work):
    """A merchant key and a phone file with its pass."""
    key = write_p256_key(os.path.join(work, "merchant.pem"))
    phone = os.path.join(work, "phone.json")
    with open(phone, "w") as f:
        json.dump({"wallet": "ApplePay", "passes": [{"pass_type_id": PASS_TYPE_ID, "key": key, "message": MESSAGE}]}, f)
    return key, phone


def write_android_phone(work):
    """A Smart Tap collector key and an Android phone file with one loyalty pass of that
    collector (scripts/rig/virtual_android.py)."""
    key = write_p256_key(os.path.join(work, "collector.pem"))
    phone = os.path.join(work, "android.json")
    with open(phone, "w") as f:
        json.dump({"wallet": "AndroidPay",
                   "collectors": [{"collector_id": COLLECTOR_ID, "key_version": 1, "key": key}],
                   "passes": [{"collector_id": COLLECTOR_ID, "type": "loyalty", "object_id": ANDROID_OBJECT_ID,
                               "value": ANDROID_VALUE}]}, f)
    return key, phone


class PosPage:
    """A POS page on a second local origin, as an integrator writes one: it vendors passtap.js
    (a copy next to the page) and connects to `rpc_url` with a token's name and secret. The page
    records what happens in `window.seen`. scripts/rig/fake_rpc_server.py serves it (and answers
    its own /rpc without holding any token, when the page is pointed there)."""

    PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>POS</title>
<script type="module">
import { connect } from "./passtap.js";
window.seen = {opened: false, closes: 0, failed: null, events: 0};
connect({url: %(url)s, tokenName: %(name)s, secret: %(secret)s, retryMinMs: 50, retryMaxMs: 50, kinds: ["read.result"],
  onOpen: () => { window.seen.opened = true; },
  onEvent: () => { window.seen.events += 1; },
  onClose: () => { window.seen.closes += 1; },
  onFail: (error) => { window.seen.failed = {reason: error.reason, message: error.message}; }});
</script></head><body></body></html>
"""

    def __init__(self, work, rpc_url, name, secret):
        """Served from its own folder under `work`; `rpc_url` None: the fake server's own /rpc."""
        self.folder = tempfile.mkdtemp(prefix="pos-page-", dir=work)
        shutil.copyfile(PASSTAP_JS, os.path.join(self.folder, "passtap.js"))
        self.record = os.path.join(self.folder, "record.jsonl")
        self.rpc_url, self.name, self.secret = rpc_url, name, secret
        self.process, self.port = fake.spawn(self.record, root=self.folder)

    def url(self):
        return "http://127.0.0.1:%d/page.html" % self.port

    def write(self):
        rpc_url = self.rpc_url or "ws://127.0.0.1:%d/rpc" % self.port
        with open(os.path.join(self.folder, "page.html"), "w") as f:
            f.write(self.PAGE % {"url": json.dumps(rpc_url), "name": json.dumps(self.name), "secret": json.dumps(self.secret)})

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=TIMEOUT_S)
        self.process.stdout.close()


class DashboardTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(PASSTAPD, os.X_OK):
            raise unittest.SkipTest("no %s: run `swift build` first" % PASSTAPD)
        cls.work = tempfile.mkdtemp(prefix="passtap-dashboard-")
        cls.screenshots = tempfile.mkdtemp(prefix="passtap-dashboard-shots-")
        cls.processes = []
        cls.rig = vcard.PcscdRig(cls.work)
        # One pcscd per machine: the same lock as the integration tests and the benches.
        cls.lock = vcard.PcscdLock().acquire()
        try:
            cls.start_stack()
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def start_stack(cls):
        work = cls.work
        key, phone = write_key_and_phone(work)
        collector, android = write_android_phone(work)
        cls.tokens = {name: base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=") for name in ("till", "wall", "till-1")}
        for name, secret in cls.tokens.items():
            write_secret(os.path.join(work, name + ".token"), secret)
        write_secret(os.path.join(work, "webhook.secret"), "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode())
        cls.port = free_port()
        # The POS page of the documented snippet: its own origin, which the till-1 token allows.
        cls.pos_port = free_port()
        # Nothing listens there: every delivery is refused (last_error_reason connection_refused).
        refused = free_port()
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

[smarttap]
enabled = true
collector_id = %(collector_id)d
key_version = 1
key = "%(collector)s"

# The NDEF tag, behind the emulated PN532 (libnfc's own pn532_uart driver).
[libnfc]
enabled = true
devices = ["pn532_uart:%(work)s/%(link)s"]

# A sink nobody listens for: its backlog grows, with a reason class, in the forwarding panel.
[forward]
outbox = "%(work)s/outbox.sqlite"

[[forward.webhooks]]
name = "%(sink)s"
url = "http://127.0.0.1:%(refused)d/taps"
secret_file = "%(work)s/webhook.secret"
timeout_ms = 1000

[web]
listen = "127.0.0.1:%(port)d"

[[web.tokens]]
name = "till"
token_file = "%(work)s/till.token"
roles = ["observe", "read"]
origins = []

[[web.tokens]]
name = "till-1"
token_file = "%(work)s/till-1.token"
roles = ["observe", "read"]
origins = ["http://127.0.0.1:%(pos_port)d"]

[[web.tokens]]
name = "wall"
token_file = "%(work)s/wall.token"
roles = ["observe"]
origins = []
""" % {"work": work, "pass": PASS_TYPE_ID, "key": key, "port": cls.port, "collector_id": COLLECTOR_ID,
       "collector": collector, "link": PN532_LINK, "sink": SINK, "refused": refused, "pos_port": cls.pos_port})
        # A pcscd of a test that just released the lock may still be exiting.
        wait_for(lambda: subprocess.run(["pidof", "pcscd"], stdout=subprocess.DEVNULL).returncode != 0,
                 "no other pcscd (pcscd-rig starts one only when none runs)", timeout=600)
        vpcd = cls.rig.start()
        cls.card = cls.virtual_card("card.sock", vpcd, phone, "card.log", "virtual iPhone")
        cls.android = cls.virtual_card("android.sock", vpcd + 1, android, "android.log", "virtual Android phone")
        pn532_socket, pn532_ready = os.path.join(work, "pn532.sock"), os.path.join(work, "pn532.ready")
        cls.spawn([sys.executable, os.path.join(ROOT, "scripts/rig/pn532_emulator.py"), "--link", os.path.join(work, PN532_LINK),
                   "--control", pn532_socket, "--ready-file", pn532_ready, "--profile", "ntag215-ndef"], "pn532.log")
        wait_for(lambda: os.path.exists(pn532_ready), "the emulated PN532")
        cls.tag = vcard.CardControl(pn532_socket, TIMEOUT_S, "emulated PN532")
        cls.nfc_reader = "nfc:pn532_uart:" + os.path.join(work, PN532_LINK)
        cls.start_daemon()

    @classmethod
    def start_daemon(cls):
        """The shared passtapd, waited for until its web listener accepts connections."""
        cls.daemon = cls.start_passtapd("passtapd.toml", cls.port, "passtapd.log")

    @classmethod
    def start_passtapd(cls, config, port, log):
        """passtapd with `config` (a file of the work folder), waited for until its web listener
        on `port` accepts connections; its log in `log`."""
        daemon = cls.spawn([PASSTAPD, "--config", os.path.join(cls.work, config)], log)

        def listening():
            if daemon.poll() is not None:
                raise AssertionError("passtapd exited: " + cls.log(log))
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0

        wait_for(listening, "passtapd's web listener on port %d" % port)
        return daemon

    @classmethod
    def virtual_card(cls, control, port, phone, log, name):
        """A virtual phone on vpcd `port` (its control socket and log in the work folder), stopped
        with the other processes."""
        with open(os.path.join(cls.work, log), "w") as stderr:
            card = vcard.VirtualCard(os.path.join(cls.work, control), port, phone, stdout=subprocess.DEVNULL,
                                     stderr=stderr, timeout=TIMEOUT_S, name=name)
        cls.processes.append(card.process)
        return card

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
        cls.rig.stop()
        cls.lock.release()
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

    def type_token(self, driver, name, secret, origin=None):
        """The login form (of the shared daemon, or at `origin`), by keyboard only: the name field
        has focus, Tab to the token, Enter."""
        driver.get((origin or self.origin()) + "/")
        field = WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.find_element(By.ID, "token-name"))
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.switch_to.active_element == field, "the name field has focus")
        field.send_keys(name + Keys.TAB)
        self.assertEqual(driver.switch_to.active_element.get_attribute("id"), "token")
        driver.switch_to.active_element.send_keys(secret + Keys.ENTER)

    def log_in(self, driver, name):
        self.type_token(driver, name, self.tokens[name])
        try:
            WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.find_element(By.ID, "dashboard").is_displayed())
        except Exception:
            self.fail("not logged in: %r %r; passtapd log: %s" % (
                self.text(driver, "connection"), self.text(driver, "login-error"), self.log("passtapd.log")))

    def kept(self, driver):
        """Everything the page keeps: web storage's entries, and every IndexedDB record with each
        string in it and each CryptoKey's extractable flag and whether exportKey gave its bytes."""
        return driver.execute_async_script("""
const done = arguments[arguments.length - 1];
const kept = {session: Object.entries(sessionStorage), local: Object.entries(localStorage), records: []};
function walk(value, found) {
  if (typeof value === "string") found.strings.push(value);
  else if (value instanceof CryptoKey) found.keys.push(value);
  else if (value && typeof value === "object") for (const v of Object.values(value)) walk(v, found);
  return found;
}
function records(name) {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(name);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result, stores = Array.from(db.objectStoreNames), all = [];
      if (stores.length === 0) { db.close(); return resolve(all); }
      const tx = db.transaction(stores);
      for (const store of stores) {
        const keys = tx.objectStore(store).getAllKeys(), values = tx.objectStore(store).getAll();
        values.onsuccess = () => values.result.forEach((v, i) => all.push({db: name, store, key: keys.result[i], value: v}));
      }
      tx.oncomplete = () => { db.close(); resolve(all); };
    };
  });
}
(async () => {
  for (const info of await indexedDB.databases()) {
    for (const record of await records(info.name)) {
      const found = walk(record.value, {strings: [], keys: []});
      const keys = [];
      for (const key of found.keys) {
        let exported = false;
        try { await crypto.subtle.exportKey("raw", key); exported = true; } catch (e) {}
        keys.push({extractable: key.extractable, usages: key.usages, exported});
      }
      kept.records.push({db: record.db, store: record.store, key: String(record.key), strings: found.strings, keys});
    }
  }
  done(kept);
})().catch((e) => done({error: String(e)}));
""")

    def assert_no_raw_token(self, driver, secret):
        kept = self.kept(driver)
        self.assertEqual(kept["session"], [], "sessionStorage holds nothing")
        self.assertEqual(kept["local"], [], "localStorage holds nothing")
        self.assertEqual(len(kept["records"]), 1, kept)
        record = kept["records"][0]
        self.assertEqual(record["keys"], [{"extractable": False, "usages": ["sign", "verify"], "exported": False}])
        for string in record["strings"]:
            self.assertNotIn(secret, string, "a string in IndexedDB holds the token")

    def text(self, driver, element_id):
        return driver.find_element(By.ID, element_id).text

    def wait_text(self, driver, element_id, needle, what):
        try:
            WebDriverWait(driver, TIMEOUT_S).until(lambda d: needle in self.text(d, element_id))
        except Exception:
            self.fail("%s: %r not in #%s: %r; passtapd log: %s" % (what, needle, element_id, self.text(driver, element_id), self.log("passtapd.log")))

    def tap_rows(self, driver):
        return driver.find_elements(By.CSS_SELECTOR, "#taps tbody tr")

    @contextlib.contextmanager
    def unix_connection(self):
        """A connection to the daemon's Unix socket, as a file of lines."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(TIMEOUT_S)
            s.connect(os.path.join(self.work, "passtapd.sock"))
            with s.makefile("rw") as f:
                yield f

    @staticmethod
    def request(connection, method, params=None):
        """One request on `connection` (from unix_connection); its result."""
        request = {"jsonrpc": "2.0", "id": 1, "method": method}
        if params is not None:
            request["params"] = params
        connection.write(json.dumps(request) + "\n")
        connection.flush()
        return json.loads(connection.readline())["result"]

    def next_seq(self):
        """The seq the daemon's next event gets (events.subscribe's next_seq, on its Unix socket)."""
        with self.unix_connection() as f:
            return self.request(f, "events.subscribe", {"kinds": ["read.result"]})["next_seq"]

    def call(self, method):
        """One request on the daemon's Unix socket (no params); its result."""
        with self.unix_connection() as f:
            return self.request(f, method)

    def tap_all(self, devices):
        """Taps every device at once ({name: (device, reader id)}) and returns {name: its
        read.result} as the Unix socket publishes them (subscribed before the taps: the daemon
        keeps only 4 events), once all are in; the devices leave the field again."""
        results = {}
        with self.unix_connection() as f:
            self.request(f, "events.subscribe", {"kinds": ["read.result"]})  # events from here on
            try:
                for device, _ in devices.values():
                    device.command("tap")
                names = {reader: name for name, (_, reader) in devices.items()}
                while len(results) < len(devices):
                    params = json.loads(f.readline()).get("params") or {}
                    if params.get("reader") in names:
                        results[names[params["reader"]]] = params
            finally:
                for device, _ in devices.values():
                    device.command("remove")
        return results

    def tap(self, driver, device=None):
        """One tap of `device` (default: the virtual iPhone); returns its row once the page shows it
        (a row newer than every event before the tap: the page also replays earlier tests' taps)."""
        device = device or self.card
        first = self.next_seq()
        device.command("tap")
        try:
            def row(d):
                rows = [r for r in self.tap_rows(d) if int(r.get_attribute("data-seq")) >= first]
                return rows[0] if rows else None
            # The page rebuilds its rows on every event: a row found may be gone at once.
            return WebDriverWait(driver, TIMEOUT_S, ignored_exceptions=(StaleElementReferenceException,)).until(
                row, "no row for the tap (events from seq %d); the page says: %s" % (first, self.text(driver, "connection")))
        finally:
            device.command("remove")

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
        self.log_in(driver, "till")
        self.assertEqual(driver.find_element(By.ID, "token").get_attribute("value"), "", "the token's field is emptied")
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
        self.assert_no_raw_token(driver, self.tokens["till"])
        self.assertNotIn(self.tokens["till"], driver.current_url)
        # Keyboard: Tab from the top reaches the log-out button, then the scrollable tables.
        driver.save_screenshot(os.path.join(self.screenshots, "read.png"))
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
        # A reload logs in again with the kept key (a second WebSocket), and still keeps no token.
        driver.refresh()
        self.wait_text(driver, "connection", "Connected as till", "the page reconnecting with its kept key")
        self.assertTrue(driver.find_element(By.ID, "dashboard").is_displayed())
        self.assert_no_raw_token(driver, self.tokens["till"])

    def test_the_kiosk_shows_both_wallets_a_tag_and_forwarding_without_sideways_scroll(self):
        """At 1024x600, with a libnfc reader's long id: an iPhone's, an Android phone's and a tag's
        rows, each with a short reader label (the full id on hover), the pass of the wallet that
        answered or the NDEF line, and its duration in view; no sideways scroll anywhere; the
        forwarding panel shows the refused sink's backlog and reason; health problems as status
        gives them."""
        driver = self.browser()
        self.log_in(driver, "till")
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#readers tbody tr")) == 3,
                                               "three readers")
        # The three tap at once, each on its own reader; each read.result as the socket has it.
        devices = {"iphone": (self.card, "pcsc:" + READER), "android": (self.android, "pcsc:" + ANDROID_READER),
                   "tag": (self.tag, self.nfc_reader)}
        rows = {name: (result["seq"], result, devices[name][1]) for name, result in self.tap_all(devices).items()}
        selector = ", ".join('#taps tbody tr[data-seq="%d"]' % seq for seq, _, _ in rows.values())
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, selector)) == 3,
                                               "the three taps' rows")
        geometry = driver.execute_script("""
const doc = document.documentElement, taps = document.getElementById("taps");
const region = taps.parentElement, box = region.getBoundingClientRect();
return {doc: [doc.scrollWidth, doc.clientWidth], region: [region.scrollWidth, region.clientWidth],
        table: [taps.scrollWidth, taps.getBoundingClientRect().width, box.width],
        durations: Array.from(taps.tBodies[0].rows).map((row) => {
          const cell = row.cells[row.cells.length - 1].getBoundingClientRect();
          return [cell.left, cell.right, box.right, cell.width];
        })};
""")
        print("kiosk geometry: %s" % json.dumps(geometry), file=sys.stderr)
        self.assertLessEqual(geometry["doc"][0], geometry["doc"][1], "the page scrolls sideways: %s" % geometry)
        self.assertLessEqual(geometry["region"][0], geometry["region"][1], "the taps' table scrolls sideways: %s" % geometry)
        self.assertLessEqual(geometry["table"][0], geometry["table"][2] + 1, "the taps' table is wider than its panel: %s" % geometry)
        for left, right, edge, width in geometry["durations"]:
            self.assertTrue(width > 0 and right <= edge + 1 and right <= 1024, "a duration out of view: %s" % geometry)
        # The page rebuilds its rows on every event: each is found afresh by its seq.
        row = lambda name: driver.find_element(By.CSS_SELECTOR, '#taps tbody tr[data-seq="%d"]' % rows[name][0])
        for name, (_, result, reader) in rows.items():
            label = row(name).find_element(By.CSS_SELECTOR, "td.reader")
            self.assertEqual(label.get_attribute("title"), reader, name)
            self.assertLess(len(label.text), len(reader), "%s: the label is the reader's whole id" % name)
            self.assertLessEqual(len(label.text), 20, name)
            duration = row(name).find_elements(By.TAG_NAME, "td")[-1].text
            # A memory tag has no APDU session, so no duration (docs/socket-api.md).
            expected = "—" if result["duration_ms"] is None else "%.1f" % result["duration_ms"]
            self.assertEqual(duration, expected, name)
        # The iPhone: the merchant's pass type id and the message, and no Smart Tap.
        # (.text is what shows, an ellipsis cutting it; textContent, what the cell holds.)
        iphone = row("iphone").find_element(By.CSS_SELECTOR, "td.pass")
        self.assertIn(MESSAGE, iphone.text)
        self.assertIn(PASS_TYPE_ID + ": success", iphone.text)
        self.assertNotIn("Google", iphone.text)
        # The Android phone: Smart Tap's object as on the wire, and nothing of Apple VAS (its
        # `vas` record is still on the wire, with its problem: docs/socket-api.md).
        result = rows["android"][1]
        self.assertIsNotNone(result["vas"], "read.result's vas stays on the wire for an Android phone")
        objects = result["smarttap"]["objects"]
        self.assertEqual(len(objects), 1, result["smarttap"])
        android = row("android").find_element(By.CSS_SELECTOR, "td.pass").text
        for part in (objects[0]["value"], objects[0]["type"] + " · object " + objects[0]["object_id"]):
            self.assertIn(part, android)
        self.assertNotIn("VAS", android)
        self.assertNotIn("not_requested", android)
        self.assertEqual(row("android").find_element(By.CSS_SELECTOR, "td.outcome").text, "pass")
        self.assertEqual(driver.find_elements(By.ID, "injected-android"), [])
        # The tag: its records in one line, cut with an ellipsis.
        ndef = row("tag").find_element(By.CSS_SELECTOR, "td.pass .line:has(.ndef)")
        self.assertIn(TAG_URI, ndef.get_attribute("textContent"))
        line = driver.execute_script("""
const node = arguments[0], style = getComputedStyle(node);
return {whiteSpace: style.whiteSpace, overflow: style.textOverflow, lines: node.getClientRects().length,
        height: node.getBoundingClientRect().height, lineHeight: parseFloat(style.lineHeight) || 20};
""", ndef)
        self.assertEqual((line["whiteSpace"], line["overflow"]), ("nowrap", "ellipsis"), line)
        self.assertLess(line["height"], line["lineHeight"] * 1.5, "the NDEF line wraps: %s" % line)
        # Forwarding: the sink, its backlog, the age of its oldest event and the reason class,
        # as forward.status gives them to a web token (observe: no error text).
        self.wait_text(driver, "forwarding", "connection_refused", "the sink's reason class")
        panel = self.text(driver, "forwarding")
        self.assertIn(SINK, panel)
        self.assertRegex(panel, r"\b[1-9][0-9]* pending")
        self.assertRegex(panel, r"oldest [0-9]+(\.[0-9])? ?(ms|s|min|h)")
        # Health: what status says, one problem per line (none when healthy).
        health = self.call("status")["health"]
        shown = [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#problems li")]
        self.assertEqual(shown, health["problems"])
        path = os.path.join(self.screenshots, "kiosk.png")
        driver.save_screenshot(path)
        if os.environ.get("PASSTAP_DASHBOARD_SCREENSHOT"):
            shutil.copyfile(path, os.environ["PASSTAP_DASHBOARD_SCREENSHOT"])

    def test_a_till_without_forwarding_says_forwarding_is_off(self):
        """A second passtapd, without [forward] (nor readers): the panel says forwarding is off,
        as forward.status has it (enabled false, no sinks)."""
        port = free_port()
        with open(os.path.join(self.work, "plain.toml"), "w") as f:
            f.write("""[socket]
path = "%(work)s/plain.sock"

[pcsc]
enabled = false

[web]
listen = "127.0.0.1:%(port)d"

[[web.tokens]]
name = "wall"
token_file = "%(work)s/wall.token"
roles = ["observe"]
origins = []
""" % {"work": self.work, "port": port})
        daemon = self.start_passtapd("plain.toml", port, "plain.log")
        self.addCleanup(lambda: (daemon.terminate(), daemon.wait(timeout=TIMEOUT_S)))
        driver = self.browser()
        self.type_token(driver, "wall", self.tokens["wall"], "http://127.0.0.1:%d" % port)
        self.wait_text(driver, "forwarding-summary", "Forwarding is off", "forwarding off")
        self.assertEqual(driver.find_elements(By.CSS_SELECTOR, "#forwarding li"), [])

    def test_an_observe_token_sees_the_tap_without_its_message(self):
        """The iPhone's and the Android phone's passes, each withheld from an observe token."""
        driver = self.browser()
        self.log_in(driver, "wall")
        self.wait_text(driver, "readers", READER, "the reader")
        # Events 1.. are older than the 4 the daemon keeps by now: the page was told of the gap.
        self.assertGreater(self.next_seq(), 5)
        row = self.tap(driver)
        self.wait_text(driver, "taps", "withheld", "the withheld pass")
        self.assertIn("Connected as wall", self.text(driver, "connection"))
        self.assertIn(PASS_TYPE_ID + ": success", row.text)
        # The Android phone's Smart Tap pass too: a pass, withheld, with no value or object id.
        row = self.tap(driver, self.android)
        self.assertEqual(row.find_element(By.CSS_SELECTOR, "td.outcome").text, "pass")
        self.assertIn("Google pass withheld: access", row.text)
        self.assertNotIn("object", row.get_attribute("textContent"))
        self.assertNotIn("0042", driver.find_element(By.TAG_NAME, "body").text)
        driver.save_screenshot(os.path.join(self.screenshots, "observe.png"))
        self.assert_same_origin(driver)

    def test_a_wrong_token_is_refused_and_asked_again(self):
        # The server proves first: with a wrong token the page cannot check passtapd's proof, so it
        # says so and sends nothing more (the same for a name no token has).
        driver = self.browser()
        self.type_token(driver, "till", "x" * 43)
        self.wait_text(driver, "login-error", "did not prove that it holds this token", "the refusal")
        self.assertFalse(driver.find_element(By.ID, "dashboard").is_displayed())
        self.assertEqual(self.kept(driver)["records"], [], "the wrong token's key is forgotten")

    def test_a_page_of_another_local_origin_never_authenticates(self):
        other = PosPage(self.work, "ws://127.0.0.1:%d/rpc" % self.port, "till", self.tokens["till"])
        self.addCleanup(other.stop)
        other.write()
        driver = self.browser()
        driver.get(other.url())
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.execute_script("return window.seen.closes > 0 || window.seen.failed !== null"))
        seen = driver.execute_script("return window.seen")
        self.assertFalse(seen["opened"], "the other origin authenticated: %s" % seen)
        self.assertEqual(seen["events"], 0, seen)

    def test_passtap_js_computes_the_known_answer_vector(self):
        driver = self.browser()
        driver.get(self.origin() + "/")
        proofs = driver.execute_async_script("""
const done = arguments[arguments.length - 1];
import("/passtap.js").then(async (p) => {
  const key = await p.importToken("dGVzdC10b2tlbi1mb3ItdGhlLWhhbmRzaGFrZS12ZWN0b3I");
  const client = p.hexToBytes("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  const server = p.hexToBytes("202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f");
  done([await p.proof(key, "server", "till-1", client, server), await p.proof(key, "client", "till-1", client, server),
        key.extractable, key.usages]);
}).catch((e) => done(String(e)));
""")
        self.assertEqual(proofs, ["baa9fd6bbc22ed37f10db57bdd4b3513d12a1c098dbdf3880261275c125cf535",
                                  "8f154bdc076da9e82548c18a313835a36e9031825bffb2df6b2ff21b3f35aff2",
                                  False, ["sign", "verify"]])

    def test_the_documented_snippet_connects_as_written(self):
        """README.md's and docs/web.md's snippet (the same one), run as written in a POS page of an
        origin its token allows, with a vendored passtap.js: it completes the 0.2.0 handshake with
        passtapd, and its pass.read reaches the daemon (which answers unknown_reader: the snippet's
        reader is an example) once the page is open, as the snippet says."""
        folder = tempfile.mkdtemp(prefix="pos-snippet-", dir=self.work)
        shutil.copyfile(PASSTAP_JS, os.path.join(folder, "passtap.js"))  # served for ./vendor/passtap.js too
        snippet = documented_snippet().replace("ws://127.0.0.1:8941/rpc", "ws://127.0.0.1:%d/rpc" % self.port)
        with open(os.path.join(folder, "page.html"), "w") as f:
            f.write("""<!doctype html><html><head><meta charset="utf-8"><title>POS</title>
<script>
window.TOKEN = %s; window.logged = []; window.failed = null; window.rejected = null;
const log = console.log; console.log = (...args) => { window.logged.push(args.map(String).join(" ")); log(...args); };
window.showTap = () => {}; window.showPass = () => {}; window.payButton = {}; window.alertStaff = (reason, message) => { window.failed = [reason, message]; };
window.addEventListener("unhandledrejection", (event) => { window.rejected = event.reason && event.reason.reason; });
</script>
<script type="module">
%s</script></head><body></body></html>
""" % (json.dumps(self.tokens["till-1"]), snippet))
        server, _ = fake.spawn(os.path.join(folder, "record.jsonl"), root=folder, port=self.pos_port)
        self.addCleanup(lambda: (server.terminate(), server.wait(timeout=TIMEOUT_S), server.stdout.close()))
        driver = self.browser()
        driver.get("http://127.0.0.1:%d/page.html" % self.pos_port)
        seen = lambda: driver.execute_script("return {logged: window.logged, failed: window.failed, rejected: window.rejected}")
        try:
            WebDriverWait(driver, TIMEOUT_S).until(lambda d: seen()["logged"] or seen()["failed"] is not None)
        except Exception:
            self.fail("the snippet never connected: %s; console: %s" % (seen(), driver.get_log("browser")))
        driver.execute_script("window.payButton.onclick()")  # the till's button, pressed
        try:
            WebDriverWait(driver, TIMEOUT_S).until(lambda d: seen()["rejected"] is not None or seen()["failed"] is not None)
        except Exception:
            self.fail("the snippet's pass.read never answered: %s; console: %s" % (seen(), driver.get_log("browser")))
        seen = seen()
        self.assertIsNone(seen["failed"], seen)
        self.assertIn("connected as till-1 observe,read", seen["logged"], seen)
        self.assertEqual(seen["rejected"], "unknown_reader", seen)

    def test_a_pos_page_refuses_a_server_that_cannot_prove_and_sends_it_no_proof(self):
        squatter = PosPage(self.work, None, "till", self.tokens["till"])
        self.addCleanup(squatter.stop)
        squatter.write()
        driver = self.browser()
        driver.get(squatter.url())
        WebDriverWait(driver, TIMEOUT_S).until(lambda d: d.execute_script("return window.seen.failed !== null"))
        seen = driver.execute_script("return window.seen")
        self.assertEqual(seen["failed"]["reason"], "server_unproven", seen)
        self.assertFalse(seen["opened"])
        # A stopped client does not come back: the page retries every 50 ms, so a reconnection
        # would show within this short wait.
        time.sleep(0.3)
        self.assert_sent_only_hello(squatter.record, self.tokens["till"], "till")

    def assert_sent_only_hello(self, record, secret, name):
        """What a client sent the fake server: one connection, one auth.hello naming the token, no
        proof and no secret."""
        entries = fake.recorded(record)
        messages = [json.loads(e["message"]) for e in entries if "message" in e]
        self.assertEqual([e["connection"] for e in entries if "path" in e], [1], "one connection: %s" % entries)
        self.assertEqual([m["method"] for m in messages], ["auth.hello"], "only auth.hello: %s" % messages)
        self.assertEqual(messages[0]["params"]["token"], name)
        with open(record) as f:
            self.assertNotIn(secret, f.read())

    def test_z_the_page_follows_a_restarted_daemon(self):
        """Last (z): it restarts the daemon the other tests share."""
        driver = self.browser()
        self.log_in(driver, "till")
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

    def test_zz_the_page_refuses_a_program_that_took_the_port(self):
        """After the restart test (zz): it stops the daemon and starts it again at the end."""
        driver = self.browser()
        self.log_in(driver, "till")
        self.wait_text(driver, "readers", READER, "the reader")
        self.daemon.terminate()
        self.daemon.wait(timeout=TIMEOUT_S)
        self.wait_text(driver, "connection", "Disconnected", "the page noticing the daemon left")
        # A local program takes the port while passtapd is down; the page reconnects to it.
        record = os.path.join(self.work, "squatter.jsonl")
        squatter, _ = fake.spawn(record, port=self.port)
        try:
            self.wait_text(driver, "login-error", "did not prove that it holds this token", "the page refusing the squatter")
            self.assertIn("another program is listening on this port", self.text(driver, "login-error"))
            self.assertFalse(driver.find_element(By.ID, "dashboard").is_displayed())
            self.assert_sent_only_hello(record, self.tokens["till"], "till")
        finally:
            squatter.terminate()
            squatter.wait(timeout=TIMEOUT_S)
            squatter.stdout.close()
        self.start_daemon()
