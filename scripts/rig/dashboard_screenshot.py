#!/usr/bin/env python3
"""Signs in to a running passtapd's dashboard in headless Chromium at a kiosk's 1024x600, waits
until its last-taps table shows a tap of each reader named (part of its name or id, as text or
in a title), and saves a PNG screenshot.

    scripts/rig/dashboard_screenshot.py --url http://127.0.0.1:8941/ --name demo \\
        --token-file /tmp/passtap-demo/web/demo.token --wait-for TEXT ... --out PATH

`scripts/demo --screenshot docs/dashboard.png` runs it on the demo's devices (the iPhone, the
Android phone and the tag). Needs Debian's chromium and chromium-driver and PyPI's selenium
(scripts/install-deps test). The token is read from its file and typed into the page's form, as
an operator would; it is never printed. Exit 0 when saved; 1, naming what is missing, when the
page did not sign in or a reader's tap did not appear within --wait seconds.
"""

import argparse
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

WIDTH, HEIGHT = 1024, 600
# Every reader id the taps table shows, as text or in a title (a short label's full id on hover).
TAPS_TEXT = """
const table = document.getElementById("taps");
if (!table) return "";
const parts = [table.textContent];
for (const element of table.querySelectorAll("[title]")) parts.push(element.getAttribute("title"));
return parts.join("\\n");
"""


def kiosk_chromium():
    """A headless Chromium whose viewport is a 1024x600 kiosk screen, with a profile of its own."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (WIDTH, HEIGHT),
                     "--no-first-run", "--disable-background-networking", "--disable-component-update",
                     "--disable-default-apps", "--disable-sync", "--hide-scrollbars"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    # The window size would include the browser's frame: set the viewport itself.
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
    return driver


def sign_in(driver, url, name, secret, wait):
    """The login form as an operator fills it: the token's name, the token, Enter."""
    driver.get(url)
    WebDriverWait(driver, wait).until(lambda d: d.find_element(By.ID, "token-name").is_displayed())
    driver.find_element(By.ID, "token-name").send_keys(name)
    driver.find_element(By.ID, "token").send_keys(secret + "\n")
    try:
        WebDriverWait(driver, wait).until(lambda d: d.find_element(By.ID, "dashboard").is_displayed())
    except TimeoutException:
        error = driver.find_element(By.ID, "login-error").text
        raise SystemExit("dashboard_screenshot: the dashboard did not sign in within %g s: %s" % (wait, error or "no error shown"))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="the dashboard, e.g. http://127.0.0.1:8941/")
    parser.add_argument("--name", required=True, help="the web token's name")
    parser.add_argument("--token-file", required=True, help="the file holding the web token")
    parser.add_argument("--wait-for", action="append", default=[], metavar="TEXT",
                        help="part of a reader's name or id that a tap in the table must show (repeat)")
    parser.add_argument("--wait", type=float, default=20, metavar="SECONDS", help="the longest wait for each step (20)")
    parser.add_argument("--out", required=True, help="the PNG to write")
    args = parser.parse_args()
    with open(args.token_file) as handle:
        secret = handle.read().strip()
    driver = kiosk_chromium()
    try:
        sign_in(driver, args.url, args.name, secret, args.wait)
        try:
            WebDriverWait(driver, args.wait).until(lambda d: all(reader in d.execute_script(TAPS_TEXT) for reader in args.wait_for))
        except TimeoutException:
            shown = driver.execute_script(TAPS_TEXT)
            missing = [reader for reader in args.wait_for if reader not in shown]
            # repr: what a card or phone chose is shown escaped, never as terminal control codes.
            raise SystemExit("dashboard_screenshot: no tap of %s in the table within %g s; it shows %r"
                             % (", ".join(missing), args.wait, shown[:400]))
        if not driver.save_screenshot(args.out):
            raise SystemExit("dashboard_screenshot: Chromium could not write %s" % args.out)
    finally:
        driver.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
