"""Checks systemd/passtapd.service with systemd's own tools, and scripts/syscall_filter.py.

- `systemd-analyze verify` in a temporary root laid out like a Debian 12 install: usr/bin/passtapd
  and usr/bin/passtap copied from the debug build, usr/bin/kill, the host's unit files (for
  sysinit.target and friends) and the unit at lib/systemd/system/passtapd.service, where the
  Debian package installs it. systemd 252's verify takes `--root=`: it looks the unit and its
  Exec binaries up inside that root, so the unit is checked exactly as shipped, no path rewritten.
  Any message at all fails the check (verify exits 0 on an unknown key or a bad value).
- `systemd-analyze security --offline=true`: exposure at most 1.5, and still 1.5 with the drop-in
  systemd/tcp-listeners.conf (the web and metrics listeners on loopback, through their socket
  units: the service itself opens no Internet socket); 1.9 with systemd/forwarding.conf (webhooks
  and PostgreSQL on other hosts), and 1.8 with that one pinned to addresses as its comment shows.
- The settings the daemon and the shipped config rely on (Type=notify, the user and groups, the
  runtime directory, the address families).
- The TCP listeners' socket units (systemd/passtapd-web.socket, passtapd-metrics.socket): verify
  with the unit and the drop-in, the names passtapd looks for in LISTEN_FDNAMES ("web",
  "metrics"), the shipped config's addresses, loopback-only address rules, the drop-in's Sockets=
  naming both; and, once passtapd adopts sockets, the built passtapd serving on sockets made as
  the units describe (systemd-socket-activate, the names and addresses read from the units).
- LimitNOFILE= against the fd budget `passtapd --check-config` prints: the soft limit covers the
  shipped config's (web and metrics on) twice, the hard one the largest listener caps.
- The memory ceiling: MemoryMax= > MemoryHigh= >= twice the largest peak RSS recorded in
  docs/operations.md ("Memory ceiling"), no swap, and verify accepts the lines.
Each check is also shown to fail on a unit broken on purpose.

Run from the repository root after `swift build`: python3 -m unittest scripts/test_systemd_unit.py
(PASSTAP_BIN_DIR names another folder holding passtapd and passtap.)
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "passtapd.service"
CONFIG = ROOT / "Config" / "passtapd.toml"
sys.path.insert(0, str(ROOT / "scripts"))
import syscall_filter  # noqa: E402

EXPOSURE_LIMIT = 1.5
# systemd/tcp-listeners.conf only adds the socket units (Sockets=): the service keeps
# RestrictAddressFamilies=AF_UNIX AF_NETLINK and IPAddressDeny=any, so its exposure does not move.
TCP_DROPIN = ROOT / "systemd" / "tcp-listeners.conf"
TCP_DROPIN_EXPOSURE_LIMIT = EXPOSURE_LIMIT
# With systemd/forwarding.conf: Internet sockets (0.3) and no address deny list (0.1).
FORWARDING_DROPIN = ROOT / "systemd" / "forwarding.conf"
FORWARDING_DROPIN_EXPOSURE_LIMIT = 1.9
# forwarding.conf pinned again by a drop-in of one's own: Internet sockets (0.3), an allow list (0.1).
FORWARDING_PINNED_EXPOSURE_LIMIT = 1.8
# forwarding.conf's comment: a drop-in of one's own that denies again and allows listed prefixes.
FORWARDING_PIN = "[Service]\nIPAddressDeny=any\nIPAddressAllow=localhost 192.0.2.0/24 2001:db8::/32 198.51.100.53\n"
# The listeners' socket units, by the name passtapd looks for in LISTEN_FDNAMES (which is also
# the config section whose `listen` the socket must match).
SOCKET_UNITS = {
    "web": ROOT / "systemd" / "passtapd-web.socket",
    "metrics": ROOT / "systemd" / "passtapd-metrics.socket",
}
# What systemd 252 prints, and then skips the line, for an IPv6 ListenStream= on a kernel without
# IPv6; the only message verify may print for the socket units, and only on such a kernel.
NO_IPV6 = "Binding to IPv6 address not available since kernel does not support IPv6."


def settings(unit_text):
    """{(section, key): [values in order]} of a unit file (scripts/syscall_filter.py reads it so too)."""
    return syscall_filter.unit_settings(unit_text)


def exposure(unit_path):
    """The overall exposure systemd-analyze security --offline=true gives the unit file."""
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=true", "--no-pager", str(unit_path)],
        capture_output=True, text=True,
    )
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d)", result.stdout)
    if not match:
        raise AssertionError(f"no exposure in systemd-analyze security's output: {result.stdout}{result.stderr}")
    return float(match.group(1))


def merged_exposure(*drop_ins):
    """The exposure of the unit with `drop_ins` (texts) appended in order: offline security reads
    one file, and later lines of a drop-in override or extend the unit's as systemd merges them."""
    with tempfile.TemporaryDirectory() as folder:
        merged = Path(folder) / "passtapd.service"
        merged.write_text("\n".join([UNIT.read_text(), *drop_ins]))
        return exposure(merged)


class InstallRoot:
    """A temporary root with the binaries the unit names, for `systemd-analyze verify --root`."""

    def __init__(self, binaries):
        self.path = Path(tempfile.mkdtemp(prefix="passtap-unit-root-"))
        usr_bin = self.path / "usr" / "bin"
        usr_bin.mkdir(parents=True)
        for name in ("passtapd", "passtap"):
            shutil.copy2(binaries / name, usr_bin / name)
        shutil.copy2(shutil.which("kill") or "/bin/kill", usr_bin / "kill")
        # Merged /usr, as on Debian 12: /bin and /lib lead into /usr.
        (self.path / "bin").symlink_to("usr/bin")
        (self.path / "lib").symlink_to("usr/lib")
        shutil.copytree("/lib/systemd/system", self.path / "usr" / "lib" / "systemd" / "system", symlinks=True)
        self.unit = self.path / "usr" / "lib" / "systemd" / "system" / "passtapd.service"

    def install(self, source, text=None):
        """Puts a unit file (or `text` under its name) beside the service, as the package does."""
        (self.unit.parent / source.name).write_text(source.read_text() if text is None else text)

    def verify(self, unit_text, name="passtapd.service"):
        """(exit status, every message) of systemd-analyze verify on the unit `name`, with this
        text as passtapd.service."""
        self.unit.write_text(unit_text)
        result = subprocess.run(
            ["systemd-analyze", "verify", f"--root={self.path}", name],
            capture_output=True, text=True,
        )
        return result.returncode, (result.stdout + result.stderr).strip()

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def binaries_folder():
    if os.environ.get("PASSTAP_BIN_DIR"):
        return Path(os.environ["PASSTAP_BIN_DIR"])
    return (ROOT / ".build" / "debug").resolve()


class VerifyTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        folder = binaries_folder()
        if not (folder / "passtapd").exists() or not (folder / "passtap").exists():
            raise AssertionError(f"no passtapd and passtap in {folder}: run `swift build` first (or set PASSTAP_BIN_DIR)")
        cls.root = InstallRoot(folder)
        cls.text = UNIT.read_text()

    @classmethod
    def tearDownClass(cls):
        cls.root.remove()

    def test_unit_passes_verify_in_a_root_with_the_installed_binaries(self):
        status, messages = self.root.verify(self.text)
        self.assertEqual((status, messages), (0, ""))

    def test_verify_reports_an_unknown_directive(self):
        broken = self.text.replace("NoNewPrivileges=yes\n", "NoNewPrivileges=yes\nProtectEverything=yes\n")
        self.assertNotEqual(broken, self.text)
        _, messages = self.root.verify(broken)
        self.assertIn("Unknown key", messages)
        self.assertIn("ProtectEverything", messages)

    def test_verify_reports_a_bad_value(self):
        broken = self.text.replace("Type=notify\n", "Type=notify-reload-please\n")
        self.assertNotEqual(broken, self.text)
        _, messages = self.root.verify(broken)
        self.assertIn("service type", messages)

    def test_verify_reports_a_binary_the_root_does_not_have(self):
        broken = self.text.replace("ExecStart=/usr/bin/passtapd", "ExecStart=/usr/local/bin/passtapd")
        self.assertNotEqual(broken, self.text)
        status, messages = self.root.verify(broken)
        self.assertNotEqual(status, 0)
        self.assertIn("/usr/local/bin/passtapd is not executable", messages)


class TCPListenersDropInTests(unittest.TestCase):
    """systemd/tcp-listeners.conf, the drop-in that turns the web and metrics listeners on: it
    pulls in their socket units and changes nothing else of the service's sandbox."""

    def test_the_unit_with_the_drop_in_passes_verify_and_keeps_its_families_and_deny(self):
        folder = binaries_folder()
        root = InstallRoot(folder)
        try:
            for path in SOCKET_UNITS.values():
                root.install(path)
            drop_ins = root.unit.parent / "passtapd.service.d"
            drop_ins.mkdir()
            shutil.copy2(TCP_DROPIN, drop_ins / TCP_DROPIN.name)
            status, messages = root.verify(UNIT.read_text())
            self.assertEqual((status, messages), (0, ""))
        finally:
            root.remove()
        merged = settings(UNIT.read_text() + TCP_DROPIN.read_text())
        families = set(" ".join(merged[("Service", "RestrictAddressFamilies")]).split())
        self.assertEqual(families, {"AF_UNIX", "AF_NETLINK"})
        self.assertEqual(merged[("Service", "IPAddressDeny")], ["any"])
        self.assertNotIn(("Service", "IPAddressAllow"), merged)
        # Sockets= and nothing else: the listeners' address rules live in the socket units.
        self.assertEqual({key for key in settings(TCP_DROPIN.read_text())}, {("Service", "Sockets")})

    def test_exposure_with_the_drop_in_stays_at_the_limit(self):
        self.assertLessEqual(merged_exposure(TCP_DROPIN.read_text()), TCP_DROPIN_EXPOSURE_LIMIT)
        self.assertEqual(merged_exposure(TCP_DROPIN.read_text()), exposure(UNIT))

    def test_the_drop_in_of_0_1_would_have_cost_0_3(self):
        # The 0.1 drop-in let the service open Internet sockets itself (to bind the listeners):
        # the score counts that, so the figure above is not a constant.
        old = "[Service]\nRestrictAddressFamilies=AF_INET AF_INET6\nIPAddressAllow=localhost\n"
        self.assertGreater(merged_exposure(old), merged_exposure(TCP_DROPIN.read_text()))


def ipv6_supported():
    """Whether the kernel has IPv6 (systemd's own test: /proc/net/if_inet6 exists)."""
    return Path("/proc/net/if_inet6").exists()


def listen_addresses(unit_path):
    """The ListenStream= addresses of a socket unit, in order."""
    return settings(unit_path.read_text()).get(("Socket", "ListenStream"), [])


def commented_default(section, key):
    """The value of `# key = "..."` under `# [section]` in the commented Config/passtapd.toml."""
    current = None
    for line in CONFIG.read_text().splitlines():
        header = re.match(r"^#?\s*\[([a-z_.]+)\]", line)
        if header:
            current = header.group(1)
        match = re.match(rf'^#\s*{key}\s*=\s*"([^"]*)"', line)
        if match and current == section:
            return match.group(1)
    raise AssertionError(f"no commented {key} under [{section}] in {CONFIG}")


class SocketUnitTests(unittest.TestCase):
    """systemd/passtapd-web.socket and passtapd-metrics.socket: systemd holds the TCP listeners'
    ports, and passtapd adopts the sockets by the names of LISTEN_FDNAMES (docs/operations.md, "The
    TCP listeners' drop-in")."""

    def verify_all(self, broken=None):
        """verify of the service (with the drop-in) and of both socket units in one root; `broken`
        (name -> text) replaces a socket unit's text. Returns {unit: (status, messages)}."""
        root = InstallRoot(binaries_folder())
        try:
            for name, path in SOCKET_UNITS.items():
                root.install(path, (broken or {}).get(name))
            drop_ins = root.unit.parent / "passtapd.service.d"
            drop_ins.mkdir()
            shutil.copy2(TCP_DROPIN, drop_ins / TCP_DROPIN.name)
            return {unit: root.verify(UNIT.read_text(), unit)
                    for unit in ["passtapd.service", *(path.name for path in SOCKET_UNITS.values())]}
        finally:
            root.remove()

    def test_the_socket_units_pass_verify_beside_the_unit_and_its_drop_in(self):
        for unit, (status, messages) in self.verify_all().items():
            if not ipv6_supported():
                messages = "\n".join(line for line in messages.splitlines() if line != NO_IPV6)
            self.assertEqual((status, messages), (0, ""), unit)

    def test_verify_reports_a_broken_socket_unit(self):
        web = SOCKET_UNITS["web"].read_text()
        for old, new, expected in (
            ("FileDescriptorName=web\n", "FileDescriptorName=we:b\n", "Invalid file descriptor name"),
            ("Service=passtapd.service\n", "Service=passtapd-nope.service\n", "not loaded"),
            ("FreeBind=yes\n", "FreeBinding=yes\n", "Unknown key"),
        ):
            self.assertIn(old, web)
            _, messages = self.verify_all({"web": web.replace(old, new)})["passtapd-web.socket"]
            self.assertIn(expected, messages)

    def test_each_socket_is_named_as_passtapd_expects_and_activates_the_service(self):
        for name, path in SOCKET_UNITS.items():
            unit = settings(path.read_text())
            self.assertEqual(unit[("Socket", "FileDescriptorName")], [name], path.name)
            self.assertEqual(unit[("Socket", "Service")], ["passtapd.service"], path.name)
            # One passtapd takes every connection (Accept=yes would start one per connection).
            self.assertEqual(unit[("Socket", "Accept")], ["no"], path.name)
            # Pulled in by the drop-in, never enabled on its own: no [Install] section.
            self.assertFalse([key for key in unit if key[0] == "Install"], path.name)
        self.assertEqual(set(" ".join(settings(TCP_DROPIN.read_text())[("Service", "Sockets")]).split()),
                         {path.name for path in SOCKET_UNITS.values()})

    def test_each_socket_listens_where_the_shipped_config_does_on_loopback_only(self):
        for name, path in SOCKET_UNITS.items():
            addresses = listen_addresses(path)
            # The first address is the config's default `listen` (passtapd checks each socket's
            # address against the config).
            self.assertEqual(addresses[0], commented_default(name, "listen"), path.name)
            for address in addresses:
                host, _, port = address.rpartition(":")
                self.assertIn(host, ("127.0.0.1", "[::1]"), path.name)
                self.assertEqual(port, addresses[0].rpartition(":")[2], path.name)
            unit = settings(path.read_text())
            self.assertEqual(unit[("Socket", "IPAddressDeny")], ["any"], path.name)
            self.assertEqual(unit[("Socket", "IPAddressAllow")], ["localhost"], path.name)
            self.assertEqual(unit[("Socket", "FreeBind")], ["yes"], path.name)
        # Both loopback addresses of the web port: a page that connects to "localhost" may land
        # on either, and one left free could be taken.
        self.assertEqual(listen_addresses(SOCKET_UNITS["web"]), ["127.0.0.1:8941", "[::1]:8941"])


def free_port(family=socket.AF_INET, host="127.0.0.1"):
    """A TCP port free on `host` just now."""
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


WEBSOCKET_UPGRADE = ("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                     "Sec-WebSocket-Version: 13\r\n")


def http_get(family, host, port, path, deadline, process, headers="Connection: close\r\n"):
    """The status line of GET path on (host, port), with `headers`, retried until `deadline`
    (monotonic) while `process` runs."""
    while True:
        try:
            with socket.socket(family, socket.SOCK_STREAM) as client:
                client.settimeout(max(0.1, deadline - time.monotonic()))
                client.connect((host, port))
                client.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost:{port}\r\n{headers}\r\n".encode())
                answer = b""
                while b"\r\n" not in answer:
                    chunk = client.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
                return answer.split(b"\r\n", 1)[0].decode(errors="replace")
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise
            time.sleep(0.1)


class SocketActivationTests(unittest.TestCase):
    """The built passtapd on sockets made as the socket units describe: the addresses (ports
    moved to free ones) and names read from the units, passed by Debian's systemd-socket-activate,
    which starts the program at the first connection with LISTEN_FDS and LISTEN_FDNAMES set."""

    def setUp(self):
        self.binary = binaries_folder() / "passtapd"
        if b"LISTEN_FDNAMES" not in self.binary.read_bytes():
            self.skipTest(f"{self.binary} does not read LISTEN_FDNAMES (adopting systemd's sockets)")
        if shutil.which("systemd-socket-activate") is None:
            self.skipTest("no systemd-socket-activate (package systemd)")

    def test_passtapd_serves_web_and_metrics_on_the_sockets_of_the_units(self):
        folder = Path(tempfile.mkdtemp(prefix="passtap-activate-"))
        self.addCleanup(shutil.rmtree, folder, True)
        ports = {name: free_port() for name in SOCKET_UNITS}
        listen, names = [], []
        for name, path in SOCKET_UNITS.items():
            for address in listen_addresses(path):
                host = address.rpartition(":")[0]
                if host == "[::1]" and not ipv6_supported():
                    continue
                listen.append(f"--listen={host}:{ports[name]}")
                names.append(name)
        config = folder / "passtapd.toml"
        config.write_text(
            f'[socket]\npath = "{folder / "passtapd.sock"}"\n[pcsc]\nenabled = false\n'
            f'[web]\nlisten = "127.0.0.1:{ports["web"]}"\n[metrics]\nlisten = "127.0.0.1:{ports["metrics"]}"\n')
        log = open(folder / "passtapd.log", "w")
        self.addCleanup(log.close)
        daemon = subprocess.Popen(
            ["systemd-socket-activate", *listen, f"--fdname={':'.join(names)}",
             str(self.binary), "--config", str(config)],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        requests = [(socket.AF_INET, "127.0.0.1", ports["metrics"], "/metrics"),
                    (socket.AF_INET, "127.0.0.1", ports["web"], "/")]
        if ipv6_supported():
            requests.append((socket.AF_INET6, "::1", ports["web"], "/"))
        try:
            # The first connection starts passtapd; it waits in the backlog until passtapd accepts.
            for family, host, port, path in requests:
                try:
                    status = http_get(family, host, port, path, deadline, daemon)
                except OSError as error:
                    status = f"no answer ({error})"
                self.assertEqual(status, "HTTP/1.1 200 OK",
                                 f"GET {path} on {host} port {port}; passtapd's log:\n{(folder / 'passtapd.log').read_text()}")
            # /rpc upgrades on the passed socket too (the handshake that follows is the web tests').
            upgrade = http_get(socket.AF_INET, "127.0.0.1", ports["web"], "/rpc", deadline, daemon, WEBSOCKET_UPGRADE)
            self.assertEqual(upgrade, "HTTP/1.1 101 Switching Protocols")
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)

    def test_a_passed_socket_on_another_address_leaves_its_listener_down_and_the_rest_serving(self):
        """A socket unit whose ListenStream= is not [web] listen: passtapd refuses the socket,
        does not bind the configured port itself, and says why in status; the socket goes on."""
        folder = Path(tempfile.mkdtemp(prefix="passtap-activate-"))
        self.addCleanup(shutil.rmtree, folder, True)
        passed, configured = free_port(), free_port()
        sock = folder / "passtapd.sock"
        config = folder / "passtapd.toml"
        config.write_text(f'[socket]\npath = "{sock}"\n[pcsc]\nenabled = false\n[web]\nlisten = "127.0.0.1:{configured}"\n')
        log = open(folder / "passtapd.log", "w")
        self.addCleanup(log.close)
        daemon = subprocess.Popen(
            ["systemd-socket-activate", f"--listen=127.0.0.1:{passed}", "--fdname=web", str(self.binary), "--config", str(config)],
            stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        try:
            # The first connection starts passtapd, which closes the socket it refuses.
            while True:
                try:
                    socket.create_connection(("127.0.0.1", passed), timeout=30).close()
                    break
                except ConnectionRefusedError:
                    # systemd-socket-activate is not listening yet.
                    self.assertLess(time.monotonic(), deadline, "systemd-socket-activate never listened")
                    time.sleep(0.05)
            while not sock.exists():
                self.assertIsNone(daemon.poll(), (folder / "passtapd.log").read_text())
                self.assertLess(time.monotonic(), deadline, "passtapd's socket never appeared")
                time.sleep(0.05)
            with socket.socket(socket.AF_UNIX) as client:
                client.settimeout(30)
                client.connect(str(sock))
                client.sendall(b'{"jsonrpc":"2.0","id":1,"method":"status"}\n')
                answer = b""
                while not answer.endswith(b"\n"):
                    chunk = client.recv(65536)
                    self.assertTrue(chunk, "passtapd closed the socket before answering status")
                    answer += chunk
            health = json.loads(answer)["result"]["health"]
            # "down" only because this config drives no reader; the listener alone makes it degraded.
            self.assertNotEqual(health["state"], "healthy", health)
            problem = next((p for p in health["problems"] if p.startswith("web listener is down")), None)
            self.assertIsNotNone(problem, health)
            self.assertIn(f"127.0.0.1:{passed}", problem)
            self.assertIn(f"[web] listen is 127.0.0.1:{configured}", problem)
            with self.assertRaises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.1", configured), timeout=5).close()
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)


class ForwardingDropInTests(unittest.TestCase):
    """systemd/forwarding.conf, the drop-in that lets the sinks reach other hosts, and the state
    directory that holds the outbox."""

    def test_the_unit_with_the_drop_in_passes_verify_and_allows_every_address(self):
        folder = binaries_folder()
        root = InstallRoot(folder)
        try:
            drop_ins = root.unit.parent / "passtapd.service.d"
            drop_ins.mkdir()
            shutil.copy2(FORWARDING_DROPIN, drop_ins / FORWARDING_DROPIN.name)
            status, messages = root.verify(UNIT.read_text())
            self.assertEqual((status, messages), (0, ""))
        finally:
            root.remove()
        merged = settings(UNIT.read_text() + FORWARDING_DROPIN.read_text())
        families = set(" ".join(merged[("Service", "RestrictAddressFamilies")]).split())
        self.assertEqual(families, {"AF_UNIX", "AF_NETLINK", "AF_INET", "AF_INET6"})
        # An empty assignment resets the unit's deny list (IPAddressAllow= takes no host names).
        self.assertEqual(merged[("Service", "IPAddressDeny")], ["any", ""])

    def test_exposure_with_the_drop_in_and_pinned_again(self):
        with_dropin = merged_exposure(FORWARDING_DROPIN.read_text())
        self.assertLessEqual(with_dropin, FORWARDING_DROPIN_EXPOSURE_LIMIT)
        self.assertGreater(with_dropin, merged_exposure(TCP_DROPIN.read_text()))
        pinned = merged_exposure(FORWARDING_DROPIN.read_text(), FORWARDING_PIN)
        self.assertLess(pinned, with_dropin)
        self.assertLessEqual(pinned, FORWARDING_PINNED_EXPOSURE_LIMIT)
        # With the listeners' drop-in too: it adds nothing to the score.
        self.assertEqual(merged_exposure(FORWARDING_DROPIN.read_text(), TCP_DROPIN.read_text()), with_dropin)
        self.assertIn(FORWARDING_PIN.splitlines()[2].strip(), FORWARDING_DROPIN.read_text())

    def test_the_outbox_lives_in_the_state_directory_nobody_else_reads(self):
        unit = settings(UNIT.read_text())
        self.assertEqual(unit[("Service", "StateDirectory")], ["passtap"])
        self.assertEqual(unit[("Service", "StateDirectoryMode")], ["0700"])
        # ProtectSystem=strict leaves /var/lib read-only but for the state directory.
        self.assertEqual(unit[("Service", "ProtectSystem")], ["strict"])
        shipped = tomllib.loads(CONFIG.read_text()).get("forward", {}).get("outbox", "/var/lib/passtap/outbox.sqlite")
        self.assertEqual(Path(shipped).parent, Path("/var/lib/passtap"))


class SecurityTests(unittest.TestCase):
    def test_exposure_is_at_most_the_limit(self):
        self.assertLessEqual(exposure(UNIT), EXPOSURE_LIMIT)

    def test_exposure_without_the_sandbox_is_over_the_limit(self):
        text = UNIT.read_text()
        start, end = text.index("# Sandbox."), text.index("[Install]")
        with tempfile.TemporaryDirectory() as folder:
            bare = Path(folder) / "passtapd.service"
            bare.write_text(text[:start] + text[end:])
            self.assertGreater(exposure(bare), EXPOSURE_LIMIT)

    def test_each_sandbox_directive_counts(self):
        # Dropping the empty capability set alone must already cost: the score is not a constant.
        text = UNIT.read_text()
        self.assertIn("CapabilityBoundingSet=\n", text)
        with tempfile.TemporaryDirectory() as folder:
            looser = Path(folder) / "passtapd.service"
            looser.write_text(text.replace("CapabilityBoundingSet=\n", ""))
            self.assertGreater(exposure(looser), exposure(UNIT))


class SettingsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.unit = settings(UNIT.read_text())
        with open(CONFIG, "rb") as config:
            cls.config = tomllib.load(config)

    def value(self, key, section="Service"):
        values = self.unit.get((section, key))
        self.assertIsNotNone(values, f"{key}= is not set")
        return values[-1]

    def test_notify_service_with_watchdog_and_reload(self):
        self.assertEqual(self.value("Type"), "notify")
        self.assertEqual(self.value("NotifyAccess"), "main")
        self.assertEqual(self.value("ExecReload"), "/bin/kill -HUP $MAINPID")
        watchdog = re.fullmatch(r"(\d+)s?", self.value("WatchdogSec"))
        self.assertIsNotNone(watchdog)
        self.assertGreater(int(watchdog.group(1)), 0)

    def test_runs_the_packaged_binary_on_the_packaged_config(self):
        self.assertEqual(self.value("ExecStartPre"), "/usr/bin/passtapd --check-config /etc/passtap/passtapd.toml")
        self.assertEqual(self.value("ExecStart"), "/usr/bin/passtapd --config /etc/passtap/passtapd.toml")

    def test_runs_as_passtapd_never_root(self):
        self.assertEqual(self.value("User"), "passtapd")
        self.assertEqual(self.value("Group"), "passtapd")
        self.assertEqual(self.value("CapabilityBoundingSet"), "")
        self.assertEqual(self.value("NoNewPrivileges"), "yes")
        groups = " ".join(self.unit[("Service", "SupplementaryGroups")]).split()
        self.assertIn("dialout", groups)  # serial PN532 boards
        self.assertIn(self.config["socket"]["group"], groups)  # to give the socket its group
        # USB readers: the group udev/70-passtapd-nfc.rules gives their nodes, which is not the
        # group passtapd runs as (that one reads merchant keys: 0640 root:passtapd).
        import test_udev_rules
        reader_groups = {v for _, _, t in test_udev_rules.reader_rules() for k, _, _, v in t if k == "GROUP"}
        self.assertEqual(reader_groups, {"passtap-nfc"})
        self.assertIn("passtap-nfc", groups)
        self.assertNotIn(self.value("Group"), reader_groups | {self.config["socket"]["group"]})
        # /dev/uinput's group (udev/71-passtap-keyboard.rules) is passtap keyboard's alone: a member
        # can type into any session.
        self.assertNotIn("passtap-keyboard", groups)
        # A + or ! prefix would run a command with privileges.
        for key in ("ExecStartPre", "ExecStart", "ExecReload"):
            for command in self.unit[("Service", key)]:
                self.assertFalse(command.startswith(("+", "!")), command)

    def test_socket_lives_in_the_runtime_directory_its_group_can_reach(self):
        directory = self.value("RuntimeDirectory")
        socket = self.config["socket"]
        self.assertEqual(os.path.dirname(socket["path"]), f"/run/{directory}")
        self.assertEqual(socket["mode"], "0660")
        self.assertEqual(socket["group"], "passtap")
        mode = int(self.value("RuntimeDirectoryMode"), 8)
        # The directory is passtapd:passtapd; members of passtap are "others" to it.
        self.assertTrue(mode & 0o001, f"{mode:o}: others cannot traverse /run/{directory}")
        self.assertFalse(mode & 0o022, f"{mode:o}: others may write /run/{directory}")

    def test_keeps_what_the_daemon_needs(self):
        families = self.value("RestrictAddressFamilies").split()
        self.assertEqual(sorted(families), ["AF_NETLINK", "AF_UNIX"])
        self.assertEqual(self.value("IPAddressDeny"), "any")
        self.assertNotIn(("Service", "IPAddressAllow"), self.unit)
        # status reads adjtimex (modes 0) for the clock's synchronisation: ProtectClock=yes
        # would refuse the call itself, and the filter must let it through.
        self.assertEqual(self.value("ProtectClock"), "no")
        allow_list, selected = syscall_filter.expand(syscall_filter.filter_lines(UNIT.read_text()))
        self.assertEqual(syscall_filter.refused(allow_list, selected, ["adjtimex"]), [])
        # glibc 2.36's adjtimex() is the clock_adjtime(CLOCK_REALTIME) system call (seen in
        # passtapd's trace once a scenario asked for status): both must be let through.
        self.assertEqual(syscall_filter.refused(allow_list, selected, ["clock_adjtime"]), [])
        # PrivateUsers= maps every socket peer to uid 65534 (the access roles need real ids);
        # PrivateNetwork= would take 127.0.0.1 (the web and metrics listeners) away.
        for key in ("PrivateUsers", "PrivateNetwork", "DynamicUser"):
            self.assertNotIn(("Service", key), self.unit)
        self.assertEqual(self.value("ProtectSystem"), "strict")
        self.assertEqual(self.value("DevicePolicy"), "closed")
        devices = [entry.split()[0] for entry in self.unit[("Service", "DeviceAllow")]]
        for device in ("char-usb_device", "char-ttyUSB", "char-ttyACM", "char-ttyS"):
            self.assertIn(device, devices)


def size_bytes(value):
    """Bytes of a systemd size (K, M, G, T: powers of 1024, as systemd reads them)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT]?)", value)
    if not match:
        raise AssertionError(f"not a size systemd takes here: {value!r}")
    return float(match.group(1)) * 1024 ** " KMGT".index(match.group(2) or " ")


def recorded_peaks_mib():
    """The peak RSS figures (MiB) of the table in docs/operations.md, "Memory ceiling"."""
    text = (ROOT / "docs" / "operations.md").read_text()
    section = text[text.index("## Memory ceiling"):]
    section = section[:section.index("\n## ", 1)]
    return [float(row[1]) for row in
            (line.strip("|").split("|") for line in section.splitlines() if line.startswith("| "))
            if len(row) == 3 and re.fullmatch(r"\s*\d+(\.\d+)?\s*", row[1])]


class MemoryCeilingTests(unittest.TestCase):
    """MemoryHigh=/MemoryMax= hold a runaway (a ping flood, a leak) to passtapd's own cgroup, with
    room above what it was measured to need (docs/operations.md, "Memory ceiling")."""

    def test_the_ceiling_is_above_twice_the_recorded_peak(self):
        unit = settings(UNIT.read_text())
        peaks = recorded_peaks_mib()
        self.assertGreaterEqual(len(peaks), 3, "the table of measured peaks in docs/operations.md")
        high = size_bytes(unit[("Service", "MemoryHigh")][-1])
        maximum = size_bytes(unit[("Service", "MemoryMax")][-1])
        self.assertGreater(maximum, high)
        self.assertGreaterEqual(high, 2 * max(peaks) * 1024 ** 2, f"MemoryHigh against peaks {peaks} MiB")
        # Without it, memory over MemoryMax would go to swap instead of being refused.
        self.assertEqual(unit[("Service", "MemorySwapMax")], ["0"])

    def test_verify_accepts_the_lines_and_refuses_a_bad_size(self):
        root = InstallRoot(binaries_folder())
        try:
            self.assertEqual(root.verify(UNIT.read_text()), (0, ""))
            value = settings(UNIT.read_text())[("Service", "MemoryMax")][-1]
            _, messages = root.verify(UNIT.read_text().replace(f"MemoryMax={value}\n", "MemoryMax=256Q\n"))
            self.assertIn("Invalid memory limit", messages)
        finally:
            root.remove()


class OpenFileLimitTests(unittest.TestCase):
    """LimitNOFILE= against the fd budget passtapd --check-config computes for a config."""

    @classmethod
    def setUpClass(cls):
        cls.passtapd = binaries_folder() / "passtapd"
        if not cls.passtapd.exists():
            raise AssertionError(f"no passtapd in {binaries_folder()}: run `swift build` first (or set PASSTAP_BIN_DIR)")
        soft, _, hard = settings(UNIT.read_text())[("Service", "LimitNOFILE")][-1].partition(":")
        cls.soft, cls.hard = int(soft), int(hard or soft)

    def check(self, text, nofile):
        """(exit status, output, budget) of passtapd --check-config on `text` under prlimit --nofile=`nofile`."""
        with tempfile.TemporaryDirectory() as folder:
            config = Path(folder) / "passtapd.toml"
            config.write_text(text)
            result = subprocess.run(
                ["prlimit", f"--nofile={nofile}", "--", str(self.passtapd), "--check-config", str(config)],
                capture_output=True, text=True,
            )
        output = result.stdout + result.stderr
        match = re.search(r"budget (\d+) = ", output)
        return result.returncode, output, int(match.group(1)) if match else None

    def test_the_soft_limit_covers_the_shipped_configs_budget_with_both_tcp_listeners_twice_over(self):
        # The shipped config with the web and metrics listeners on (the drop-in's case): the
        # largest default.
        text = CONFIG.read_text() + '\n[metrics]\nlisten = "127.0.0.1:9466"\n[web]\nlisten = "127.0.0.1:8941"\n'
        status, output, budget = self.check(text, f"{self.soft}:{self.hard}")
        self.assertEqual(status, 0, output)
        self.assertIsNotNone(budget, output)
        self.assertLessEqual(2 * budget, self.soft, output)

    def test_the_hard_limit_covers_the_largest_listener_caps(self):
        text = (
            CONFIG.read_text().replace("max_clients = 64", "max_clients = 4096")
            + '\n[metrics]\nlisten = "127.0.0.1:9466"\nmax_connections = 1024\n'
            + '[web]\nlisten = "127.0.0.1:8941"\nmax_clients = 1024\n'
        )
        status, output, budget = self.check(text, f"{self.soft}:{self.hard}")
        self.assertEqual(status, 0, output)
        self.assertGreater(budget, self.soft, output)
        self.assertLessEqual(budget, self.hard, output)

    def test_a_hard_limit_below_the_budget_is_refused_naming_the_keys(self):
        status, output, _ = self.check(CONFIG.read_text(), "64:64")
        self.assertEqual(status, 78, output)
        self.assertIn("[socket] max_clients 64", output)
        self.assertIn("LimitNOFILE=", output)


@unittest.skipUnless(os.geteuid() == 0, "needs root to start passtapd as another user")
class UnprivilegedRunTests(unittest.TestCase):
    """passtapd as the unit runs it: a user of its own, no capabilities, the socket's group as a
    supplementary group. Here user nobody, primary group nogroup, and dialout as the socket's
    group (nobody is not a member), started with setpriv as systemd would (pcsc off: no pcscd)."""

    SOCKET_GROUP = "dialout"

    def setUp(self):
        import grp
        import pwd
        self.user = pwd.getpwnam("nobody")
        self.group = grp.getgrnam(self.SOCKET_GROUP)
        self.folder = Path(tempfile.mkdtemp(prefix="passtap-unprivileged-"))
        os.chown(self.folder, self.user.pw_uid, self.user.pw_gid)
        self.socket = self.folder / "run" / "passtapd.sock"
        self.config = self.folder / "passtapd.toml"
        self.config.write_text(f'[socket]\npath = "{self.socket}"\ngroup = "{self.SOCKET_GROUP}"\n[pcsc]\nenabled = false\n')
        self.binaries = binaries_folder()

    def tearDown(self):
        shutil.rmtree(self.folder, ignore_errors=True)

    def start(self, groups):
        log = open(self.folder / "passtapd.log", "w")
        self.addCleanup(log.close)
        return subprocess.Popen(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", *groups, "--inh-caps=-all", "--bounding-set=-all",
             str(self.binaries / "passtapd"), "--config", str(self.config)],
            stdout=log, stderr=subprocess.STDOUT,
        )

    def log(self):
        return (self.folder / "passtapd.log").read_text()

    def test_serves_its_socket_as_an_unprivileged_user_with_the_socket_group_supplementary(self):
        daemon = self.start([f"--groups={self.group.gr_gid}"])
        try:
            deadline = time.monotonic() + 30
            while not self.socket.exists():
                self.assertIsNone(daemon.poll(), f"passtapd exited: {self.log()}")
                self.assertLess(time.monotonic(), deadline, f"no socket after 30 s: {self.log()}")
                time.sleep(0.05)
            info = self.socket.stat()
            self.assertEqual((info.st_uid, info.st_gid, info.st_mode & 0o7777),
                             (self.user.pw_uid, self.group.gr_gid, 0o660))
            status = Path(f"/proc/{daemon.pid}/status").read_text()
            self.assertIn(f"Uid:\t{self.user.pw_uid}\t{self.user.pw_uid}\t{self.user.pw_uid}\t{self.user.pw_uid}", status)
            self.assertIn("CapEff:\t0000000000000000", status)
            # `passtap readers`: it exits 0 whenever the daemon answers (`passtap status` also
            # grades health, and this config runs no backend: "down").
            client = subprocess.run(
                [str(self.binaries / "passtap"), "readers", "--json", "--socket", str(self.socket), "--daemon-user", "nobody"],
                capture_output=True, text=True, timeout=60,
            )
            self.assertEqual(client.returncode, 0, client.stdout + client.stderr)
            self.assertIn('"readers"', client.stdout)
        finally:
            daemon.terminate()
            self.assertEqual(daemon.wait(timeout=30), 0, self.log())

    def test_without_the_socket_group_it_refuses_to_start_and_names_it(self):
        daemon = self.start(["--clear-groups"])
        try:
            status = daemon.wait(timeout=60)
        finally:
            if daemon.poll() is None:
                daemon.kill()
        self.assertNotEqual(status, 0)
        self.assertIn(f"chown to group '{self.SOCKET_GROUP}'", self.log())


@unittest.skipUnless(os.geteuid() == 0, "needs root: the shipped config names a group only root can give")
class ShippedConfigTests(unittest.TestCase):
    """Config/passtapd.toml names [socket] group = "passtap", which the Debian package makes. Where
    the group exists, the daemon gives the socket that group; where it does not (a developer's
    machine, CI), the daemon refuses to start and names it, rather than running with another one."""

    def test_the_socket_gets_group_passtap_or_the_daemon_names_the_missing_group(self):
        import grp
        folder = Path(tempfile.mkdtemp(prefix="passtap-shipped-"))
        self.addCleanup(shutil.rmtree, folder, True)
        socket = folder / "passtapd.sock"
        text = CONFIG.read_text()
        for old, new in (('path = "/run/passtap/passtapd.sock"', f'path = "{socket}"'),
                         ("[pcsc]\n# Drive readers through pcsc-lite (pcscd).\nenabled = true",
                          "[pcsc]\nenabled = false")):
            self.assertIn(old, text)
            text = text.replace(old, new)
        config = folder / "passtapd.toml"
        config.write_text(text)
        log = open(folder / "passtapd.log", "w")
        self.addCleanup(log.close)
        daemon = subprocess.Popen([str(binaries_folder() / "passtapd"), "--config", str(config)],
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            group = grp.getgrnam("passtap")
        except KeyError:
            group = None
        try:
            if group is None:
                self.assertNotEqual(daemon.wait(timeout=60), 0)
                self.assertIn("[socket] group 'passtap' does not exist", (folder / "passtapd.log").read_text())
                return
            deadline = time.monotonic() + 30
            while not socket.exists():
                self.assertIsNone(daemon.poll(), (folder / "passtapd.log").read_text())
                self.assertLess(time.monotonic(), deadline, "no socket after 30 s")
                time.sleep(0.05)
            self.assertEqual((socket.stat().st_gid, socket.stat().st_mode & 0o7777), (group.gr_gid, 0o660))
        finally:
            if daemon.poll() is None:
                daemon.terminate()
                self.assertEqual(daemon.wait(timeout=30), 0)


class SyscallFilterTests(unittest.TestCase):
    def test_the_units_filter_is_an_allow_list_without_privileged_calls(self):
        allow_list, allowed = syscall_filter.expand(syscall_filter.filter_lines(UNIT.read_text()))
        self.assertTrue(allow_list)
        # chown: the socket's group. setpriority is refused on purpose (scripts/rig/refused_calls_shim.c).
        for name in ("read", "epoll_wait", "connect", "futex", "execve", "ioctl", "chown"):
            self.assertIn(name, allowed)
        for name in ("mount", "setuid", "setgroups", "reboot", "init_module", "ptrace", "sched_setaffinity",
                     "fchown", "setpriority"):
            self.assertNotIn(name, allowed)

    def test_every_call_the_shim_refuses_is_one_the_filter_refuses(self):
        allow_list, allowed = syscall_filter.expand(syscall_filter.filter_lines(UNIT.read_text()))
        shim = (ROOT / "scripts" / "rig" / "refused_calls_shim.c").read_text()
        refused = re.findall(r"^int (\w+)\(", shim, re.MULTILINE)
        self.assertEqual(refused, ["setpriority", "fchown"])
        self.assertEqual(sorted(syscall_filter.refused(allow_list, allowed, refused)), sorted(refused))

    def test_libdispatchs_log_is_off_while_the_filter_refuses_setpriority(self):
        # libdispatch logs each refused setpriority to syslog at notice, one line per worker thread
        # ("Failed to set thread priority for worker thread"); SystemdScenarioTests shows the
        # journal of a normal run then has nothing above info.
        allow_list, allowed = syscall_filter.expand(syscall_filter.filter_lines(UNIT.read_text()))
        self.assertEqual(syscall_filter.refused(allow_list, allowed, ["setpriority"]), ["setpriority"])
        environment = " ".join(settings(UNIT.read_text()).get(("Service", "Environment"), [])).split()
        self.assertIn("LIBDISPATCH_LOG=NO", environment)

    def test_a_deny_line_after_an_allow_line_takes_calls_out(self):
        allow_list, allowed = syscall_filter.expand(["@system-service", "~@resources"])
        self.assertTrue(allow_list)
        self.assertNotIn("setpriority", allowed)
        self.assertIn("read", allowed)

    def test_an_allow_line_after_a_deny_list_takes_calls_out_of_it(self):
        allow_list, denied = syscall_filter.expand(["~@mount @swap", "mount"])
        self.assertFalse(allow_list)
        self.assertNotIn("mount", denied)
        self.assertIn("umount2", denied)
        self.assertIn("swapon", denied)
        self.assertEqual(syscall_filter.refused(allow_list, denied, {"mount", "swapon"}), ["swapon"])

    def test_an_allow_list_always_has_default_and_an_empty_line_resets(self):
        allow_list, allowed = syscall_filter.expand(["read write"])
        self.assertIn("exit_group", allowed)  # @default
        self.assertEqual(syscall_filter.expand(["read", ""]), (None, frozenset()))
        self.assertEqual(syscall_filter.names("connect:EPERM"), frozenset({"connect"}))

    def test_a_trace_with_a_call_outside_the_filter_fails_the_check(self):
        trace = (
            "101 execve(\"/usr/bin/passtapd\", [\"passtapd\"], 0x7ffd /* 3 vars */) = 0\n"
            "102 read(3 <unfinished ...>\n"
            "101 mount(\"none\", \"/mnt\", \"tmpfs\", 0, NULL) = -1 EPERM (Operation not permitted)\n"
            "102 <... read resumed>\"x\", 1) = 1\n"
            "101 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=1} ---\n"
            "101 +++ exited with 0 +++\n"
        )
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "passtapd-x.trace"
            path.write_text(trace)
            counts, unknown = syscall_filter.calls([str(path)])
            self.assertEqual(dict(counts), {"execve": 1, "read": 1, "mount": 1})
            self.assertEqual(unknown, 0)
            self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 1)
            path.write_text(trace.replace("mount(", "openat("))
            self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 0)

    def test_a_socket_family_or_executable_memory_the_unit_refuses_fails_the_check(self):
        fine = (
            "7 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 3\n"
            "7 socket(AF_NETLINK, SOCK_RAW|SOCK_CLOEXEC|SOCK_NONBLOCK, NETLINK_KOBJECT_UEVENT) = 4\n"
            "7 mmap(NULL, 8192, PROT_READ|PROT_EXEC, MAP_PRIVATE|MAP_DENYWRITE, 3, 0) = 0x7f0000000000\n"
            "7 mprotect(0x7f0000000000, 4096, PROT_READ) = 0\n"
        )
        unit_text = UNIT.read_text()
        for bad, refusal in (
            ("7 socket(AF_PACKET, SOCK_RAW, 768) = 5\n", "socket(AF_PACKET)"),
            ("7 socket(AF_BLUETOOTH, SOCK_RAW <unfinished ...>\n", "socket(AF_BLUETOOTH)"),
            ("7 mmap(NULL, 4096, PROT_READ|PROT_WRITE|PROT_EXEC, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x1\n",
             "mmap(PROT_READ|PROT_WRITE|PROT_EXEC)"),
            ("7 mprotect(0x7f0000000000, 4096, PROT_READ|PROT_EXEC) = 0\n", "mprotect(PROT_READ|PROT_EXEC)"),
        ):
            with tempfile.TemporaryDirectory() as folder:
                path = Path(folder) / "passtapd-x.trace"
                path.write_text(fine)
                arguments = {}
                syscall_filter.calls([str(path)], arguments)
                self.assertEqual(syscall_filter.argument_refusals(unit_text, arguments), [])
                self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 0)
                path.write_text(fine + bad)
                arguments = {}
                syscall_filter.calls([str(path)], arguments)
                refusals = syscall_filter.argument_refusals(unit_text, arguments)
                self.assertEqual(len(refusals), 1, refusals)
                self.assertTrue(refusals[0].startswith(refusal), refusals)
                self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 1)

    def test_an_internet_listener_is_the_socket_units_and_a_connection_takes_the_forwarding_drop_in(self):
        plain = "7 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 3\n"
        # The rig passes no sockets, so passtapd binds [metrics] listen itself; under the unit the
        # socket unit makes that socket and passtapd adopts it.
        listener = plain + ("7 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_IP) = 9\n"
                            "7 bind(9, {sa_family=AF_INET, sin_port=htons(9466), sin_addr=inet_addr(\"127.0.0.1\")}, 16) = 0\n"
                            "7 listen(9, 128) = 0\n")
        # A webhook sink connects: that takes forwarding.conf.
        sink = plain + ("7 socket(AF_INET, SOCK_STREAM|SOCK_CLOEXEC|SOCK_NONBLOCK, IPPROTO_TCP) = 10\n"
                        "7 connect(10, {sa_family=AF_INET, sin_port=htons(443), sin_addr=inet_addr(\"127.0.0.1\")}, 16 <unfinished ...>\n"
                        "8 <... connect resumed>) = -1 EINPROGRESS (Operation now in progress)\n")
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / "passtapd-1.trace").write_text(plain)
            (Path(folder) / "passtapd-2.trace").write_text(listener)
            (Path(folder) / "passtapd-3.trace").write_text(sink)
            self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 0)
            # Without the forwarding drop-in's families (a drop-in that adds none), the sink's
            # trace fails; the listener's alone still passes.
            empty = Path(folder) / "empty.conf"
            empty.write_text("[Service]\n")
            self.assertEqual(
                syscall_filter.main(["check", "--unit", str(UNIT), "--forwarding-dropin", str(empty), folder]), 1)
            (Path(folder) / "passtapd-3.trace").unlink()
            self.assertEqual(
                syscall_filter.main(["check", "--unit", str(UNIT), "--forwarding-dropin", str(empty), folder]), 0)
            # A family no drop-in adds still fails, in a listener's trace or a sink's.
            (Path(folder) / "passtapd-2.trace").write_text(listener + "7 socket(AF_PACKET, SOCK_RAW, 768) = 5\n")
            self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 1)

    def test_address_families_combine_as_systemd_does(self):
        self.assertEqual(syscall_filter.address_families("[Service]\nRestrictAddressFamilies=AF_UNIX AF_INET\n"),
                         (True, {"AF_UNIX", "AF_INET"}))
        self.assertEqual(syscall_filter.address_families("[Service]\nRestrictAddressFamilies=~AF_PACKET\n"
                                                         "RestrictAddressFamilies=AF_PACKET\n"), (False, set()))
        self.assertEqual(syscall_filter.address_families("[Service]\n"), (None, set()))

    def test_a_program_passtapd_starts_is_counted_apart_and_a_crash_is_reported(self):
        trace = (
            "1 execve(\"/usr/bin/passtapd\", [\"passtapd\"], 0x7ffd /* 3 vars */) = 0\n"
            "1 clone3({flags=CLONE_VM|CLONE_THREAD, exit_signal=0}, 88) = 2\n"
            "2 --- SIGILL {si_signo=SIGILL, si_code=ILL_ILLOPN, si_addr=0x7f00} ---\n"
            "2 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_VFORK <unfinished ...>\n"
            "3 execve(\"/opt/swift/usr/libexec/swift/linux/swift-backtrace\", [\"swift-backtrace\"], 0x7f00) = 0\n"
            "2 <... clone resumed>) = 3\n"
            "3 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 4\n"
            "4 ptrace(PTRACE_SEIZE, 1, NULL, 0) = 0\n"
            "3 process_vm_readv(1, [{iov_base=0x7f00, iov_len=8}], 1, [{iov_base=0x7f00, iov_len=8}], 1, 0) = 8\n"
            "4 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---\n"
        )
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "passtapd-x.trace"
            path.write_text(trace)
            others, fatal = {}, []
            counts, _ = syscall_filter.calls([str(path)], None, others, fatal)
            self.assertEqual(dict(counts), {"execve": 1, "clone3": 1, "clone": 1})
            self.assertEqual(dict(others["swift-backtrace"]), {"execve": 1, "clone3": 1, "ptrace": 1, "process_vm_readv": 1})
            self.assertEqual(fatal, [("passtapd-x.trace", 2, "SIGILL")])

    def test_no_trace_at_all_fails_the_check(self):
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(syscall_filter.main(["check", "--unit", str(UNIT), folder]), 1)


if __name__ == "__main__":
    unittest.main()


KEYBOARD_UNIT = ROOT / "systemd" / "passtap-keyboard.service"
USER_KEYBOARD_UNIT = ROOT / "systemd" / "user" / "passtap-keyboard.service"
# docs/keyboard.md states it; the unit's own comment says it too.
KEYBOARD_EXPOSURE_LIMIT = 1.0


class KeyboardUnitTests(unittest.TestCase):
    """passtap keyboard's system unit (uinput): verify in a root with the binaries, its exposure,
    and that the one device it may open is /dev/uinput; the user unit (X11) verifies as well."""

    @classmethod
    def setUpClass(cls):
        cls.root = InstallRoot(binaries_folder())

    @classmethod
    def tearDownClass(cls):
        cls.root.remove()

    def test_the_system_unit_passes_verify(self):
        self.root.install(KEYBOARD_UNIT)
        status, messages = self.root.verify(UNIT.read_text(), name="passtap-keyboard.service")
        self.assertEqual(status, 0, messages)

    def test_the_user_unit_passes_verify(self):
        self.root.install(USER_KEYBOARD_UNIT)
        status, messages = self.root.verify(UNIT.read_text(), name="passtap-keyboard.service")
        self.assertEqual(status, 0, messages)
        self.root.install(KEYBOARD_UNIT)

    def test_exposure_is_within_the_stated_limit(self):
        self.assertLessEqual(exposure(KEYBOARD_UNIT), KEYBOARD_EXPOSURE_LIMIT)
        self.assertIn(f"says {exposure(KEYBOARD_UNIT)} (SAFE)", KEYBOARD_UNIT.read_text())

    def test_the_only_device_is_uinput_and_there_is_no_network(self):
        lines = KEYBOARD_UNIT.read_text().splitlines()
        self.assertEqual([line for line in lines if line.startswith("DeviceAllow=")], ["DeviceAllow=/dev/uinput rw"])
        self.assertIn("DevicePolicy=closed", lines)
        self.assertIn("RestrictAddressFamilies=AF_UNIX", lines)
        self.assertIn("PrivateNetwork=yes", lines)
