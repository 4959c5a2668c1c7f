"""Installs the Debian package into a throwaway root and checks it (docs/operations.md, "Test").

Run from the repository root, as root (dpkg, chown):
    python3 -m unittest scripts/test_package.py
It builds the package with scripts/package unless PASSTAP_DEB names a .deb already built (as
scripts/test does). Needs dpkg, lintian, man-db and binutils (scripts/install-deps).

The root is a base Debian system's /etc/passwd and /etc/group (base-passwd's masters, which
have group dialout) and an empty dpkg database; dpkg installs into it with
--root --force-script-chrootless, so the maintainer scripts run here with DPKG_ROOT set.
What they do on a running systemd system is tested apart (MaintainerScriptTests): the installed
scripts run without DPKG_ROOT in a mount namespace of their own, with stand-ins for systemctl and
deb-systemd-invoke that record each call.
"""
import gzip
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASE_PASSWD = Path("/usr/share/base-passwd")
MAN_PAGES = ["usr/share/man/man1/passtap.1.gz", "usr/share/man/man5/passtapd.toml.5.gz",
             "usr/share/man/man8/passtapd.8.gz"]
UNIT = "lib/systemd/system/passtapd.service"
# The TCP listeners' socket units: they hold the ports, so the maintainer scripts stop them on
# removal only, and never restart them.
SOCKET_UNITS = ["passtapd-web.socket", "passtapd-metrics.socket"]
# The tools the maintainer scripts call on a running system, replaced by recording stand-ins.
RECORDED_TOOLS = ["systemctl", "deb-systemd-invoke", "deb-systemd-helper", "systemd-sysusers", "udevadm"]


def run(args, **kwargs):
    """Runs a command, returning the CompletedProcess (text, both streams captured)."""
    return subprocess.run(args, capture_output=True, text=True, **kwargs)


def build_package(out_dir):
    """scripts/package --out out_dir, returning the .deb's path."""
    result = run([str(ROOT / "scripts/package"), "--out", out_dir], cwd=ROOT)
    if result.returncode != 0:
        raise AssertionError(f"scripts/package failed ({result.returncode}):\n{result.stderr[-4000:]}")
    return Path(result.stdout.strip().splitlines()[-1])


def make_root(path):
    """A throwaway root: base-passwd's /etc/passwd and /etc/group and an empty dpkg database."""
    (path / "etc").mkdir(parents=True)
    shutil.copy(BASE_PASSWD / "passwd.master", path / "etc/passwd")
    shutil.copy(BASE_PASSWD / "group.master", path / "etc/group")
    admin = path / "var/lib/dpkg"
    for sub in ("info", "updates", "triggers"):
        (admin / sub).mkdir(parents=True)
    (admin / "status").touch()
    (admin / "available").touch()


def dpkg(root, *args):
    """dpkg on the throwaway root, maintainer scripts run here with DPKG_ROOT (dpkg sets it)."""
    result = run(["dpkg", f"--root={root}", "--force-script-chrootless", "--force-not-root",
                  "--force-depends", "--log=/dev/null", *args])
    if result.returncode != 0:
        raise AssertionError(f"dpkg {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def run_maintainer_script(root, script, *args, text=None):
    """Runs the maintainer script `script` installed in `root` (or `text` in its place) as dpkg
    would on a running systemd system: no DPKG_ROOT, in a mount namespace of its own where /run is
    an empty tmpfs holding /run/systemd/system (what the scripts look for), /var an empty tmpfs
    (a purge's rm -rf /var/lib/passtap must never reach this machine's) and /etc an overlay whose
    writes are thrown away, holding the root's passwd and group. RECORDED_TOOLS are stand-ins on
    PATH that write their arguments down. Returns (exit status, output, [each call's argv])."""
    with tempfile.TemporaryDirectory(prefix="passtap-maint-") as folder:
        work = Path(folder)
        tools, calls = work / "bin", work / "calls"
        tools.mkdir()
        for name in RECORDED_TOOLS:
            tool = tools / name
            tool.write_text('#!/bin/sh\nprintf \'%s\\0\' "${0##*/}" "$@" >> "$PASSTAP_CALLS"\nprintf \'\\n\' >> "$PASSTAP_CALLS"\n')
            tool.chmod(0o755)
        calls.touch()
        path = root / f"var/lib/dpkg/info/passtap.{script}"
        if text is not None:
            path = work / script
            path.write_text(text)
        for sub in ("upper", "overlay-work"):
            (work / sub).mkdir()
        setup = (
            "set -e; mount -t tmpfs tmpfs /run; mkdir -p /run/systemd/system; mount -t tmpfs tmpfs /var; "
            f"mount -t overlay overlay -o lowerdir=/etc,upperdir={work}/upper,workdir={work}/overlay-work /etc; "
            f"cp {root}/etc/passwd {root}/etc/group /etc/; "
            'exec env -u DPKG_ROOT PATH="$TOOLS:$PATH" sh "$@"'
        )
        environment = dict(os.environ, TOOLS=str(tools), PASSTAP_CALLS=str(calls))
        result = run(["unshare", "--mount", "--propagation", "private", "sh", "-c", setup, "sh",
                      str(path), *args], env=environment)
        recorded = [line.rstrip("\0").split("\0") for line in calls.read_text().splitlines() if line]
        return result.returncode, result.stdout + result.stderr, recorded


def entries(path):
    """name -> fields of a passwd- or group-style file."""
    return {line.split(":")[0]: line.split(":") for line in Path(path).read_text().splitlines() if line}


def unit_commands(unit_text):
    """(key, argv) of every Exec*= line of a unit, without systemd's prefixes (-@:+!)."""
    commands = []
    for line in unit_text.splitlines():
        match = re.match(r"\s*(Exec\w+)\s*=\s*(.+)", line)
        if match:
            argv = shlex.split(match.group(2))
            argv[0] = argv[0].lstrip("-@:+!")
            commands.append((match.group(1), argv))
    return commands


class PackageSetup:
    """The package, built once for every test class of this file."""
    deb = None
    work = None

    @classmethod
    def get(cls):
        if cls.deb is None:
            if os.environ.get("PASSTAP_DEB"):
                cls.deb = Path(os.environ["PASSTAP_DEB"])
            else:
                cls.work = tempfile.mkdtemp(prefix="passtap-deb-")
                cls.deb = build_package(cls.work)
        return cls.deb


def config_keys(text):
    """section -> keys of a commented passtapd.toml, commented-out examples included."""
    keys, section = {}, None
    for line in text.splitlines():
        header = re.match(r"^#?\s*\[\[?([a-z_.]+)\]\]?(\s|$)", line)
        if header:
            section = header.group(1)
            keys.setdefault(section, [])
            continue
        key = re.match(r"^#?\s*([a-z_]+)\s*=\s*\S", line)
        if key and section:
            keys[section].append(key.group(1))
    return keys


class ConfigManualPageTests(unittest.TestCase):
    """man/passtapd.toml.5 against Config/passtapd.toml, the commented reference."""

    def test_every_section_and_key_of_the_reference_config_is_documented(self):
        page = (ROOT / "man/passtapd.toml.5").read_text()
        # Each .SS subsection's text, by its heading without brackets.
        subsections = {}
        for chunk in re.split(r"^(?=\.S[SH] )", page, flags=re.M):
            heading = re.match(r"\.SS \[\[?([a-z_.]+)\]\]?\n", chunk)
            if heading:
                subsections[heading.group(1)] = chunk
        keys = config_keys((ROOT / "Config/passtapd.toml").read_text())
        self.assertGreaterEqual(len(keys), 10, keys)
        for section, names in keys.items():
            self.assertIn(section, subsections, f"passtapd.toml(5) has no subsection [{section}]")
            for name in names:
                self.assertRegex(subsections[section], rf"(?m)^\.BR? {name}\b",
                                 f"passtapd.toml(5) does not document [{section}] {name}")

    def test_the_page_has_no_warnings(self):
        environment = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
        shown = run(["man", "--warnings", "-l", str(ROOT / "man/passtapd.toml.5")], env=environment)
        self.assertEqual((shown.returncode, shown.stderr), (0, ""))
        for heading in ("RELOAD OR RESTART", "SECTIONS AND KEYS", "FILES", "SEE ALSO"):
            self.assertIn(heading, shown.stdout)


@unittest.skipUnless(os.geteuid() == 0, "installs with dpkg into a root and chowns: run as root")
class InstalledPackageTests(unittest.TestCase):
    """One install into a throwaway root; every test reads what it left."""

    @classmethod
    def setUpClass(cls):
        cls.deb = PackageSetup.get()
        cls.tmp = tempfile.TemporaryDirectory(prefix="passtap-root-")
        cls.root = Path(cls.tmp.name)
        make_root(cls.root)
        dpkg(cls.root, "-i", str(cls.deb))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_path_the_unit_names_is_installed(self):
        unit = (self.root / UNIT).read_text()
        commands = unit_commands(unit)
        keys = {key for key, _ in commands}
        self.assertIn("ExecStart", keys, unit)
        config_paths = set()
        for key, argv in commands:
            if Path(argv[0]).name.startswith("passtap"):
                # Ours: the package must put it where the unit runs it.
                self.assertTrue(argv[0].startswith("/"), f"{key}: {argv[0]} is not an absolute path")
                program = self.root / argv[0].lstrip("/")
                self.assertTrue(program.is_file() and os.access(program, os.X_OK), f"{key}: {argv[0]} is not installed")
            else:
                # A system tool (ExecReload=/bin/kill -HUP $MAINPID, say): it must exist here.
                self.assertIsNotNone(shutil.which(argv[0]), f"{key}: {argv[0]} is not on this system")
            for flag, value in zip(argv, argv[1:]):
                if flag in ("--config", "--check-config"):
                    config_paths.add(value)
        self.assertTrue(config_paths, f"no --config or --check-config path in the unit:\n{unit}")
        for path in config_paths:
            self.assertTrue((self.root / path.lstrip("/")).is_file(), f"{path} (named by the unit) is not installed")
        for doc in re.findall(r"file://(\S+)", unit):
            self.assertTrue((self.root / doc.lstrip("/")).is_file(), f"Documentation={doc} is not installed")
        for name, section in re.findall(r"man:([\w.-]+)\((\d)\)", unit):
            page = self.root / f"usr/share/man/man{section}/{name}.{section}.gz"
            if name.startswith("passtap"):
                self.assertTrue(page.is_file(), f"Documentation=man:{name}({section}) is not installed")

    def test_the_installed_binaries_run_and_carry_the_packages_version(self):
        swift = (ROOT / "Sources/PassTapCore/PassTapVersion.swift").read_text()
        version = re.search(r'static let string = "([^"]+)"', swift).group(1)
        control = run(["dpkg-deb", "-f", str(self.deb), "Version", "Depends"])
        self.assertEqual(control.stdout.splitlines()[0], f"Version: {version}")
        # Depends as dpkg-shlibdeps found it: the C libraries the binaries link, never the toolchain.
        # zlib1g: SmartTap inflates compressed record bundles through CZlib.
        for library in ("libc6", "libpcsclite1", "libnfc6", "zlib1g"):
            self.assertIn(library, control.stdout)
        self.assertNotIn("swift", control.stdout.lower())
        # The sinks trust the system's CAs; SQLite is built into passtapd (sqlite-nio's copy).
        self.assertIn("ca-certificates", control.stdout)
        self.assertNotIn("libsqlite3", control.stdout)
        for program in ("passtapd", "passtap"):
            shown = run([str(self.root / "usr/bin" / program), "--version"])
            self.assertEqual((shown.returncode, shown.stdout.strip()), (0, version), shown.stderr)

    def test_udev_modprobe_sysusers_and_polkit_files_are_installed(self):
        expected = {
            "lib/udev/rules.d/70-passtapd-nfc.rules": ROOT / "udev/70-passtapd-nfc.rules",
            "lib/modprobe.d/passtapd-blacklist.conf": ROOT / "udev/passtapd-blacklist.conf",
            "usr/lib/sysusers.d/passtap.conf": ROOT / "packaging/debian/sysusers.conf",
            UNIT: ROOT / "systemd/passtapd.service",
            "usr/share/doc/passtap/examples/tcp-listeners.conf": ROOT / "systemd/tcp-listeners.conf",
            "usr/share/doc/passtap/examples/forwarding.conf": ROOT / "systemd/forwarding.conf",
            # passtap keyboard (docs/keyboard.md): /dev/uinput for its group, the module, its units.
            "lib/udev/rules.d/71-passtap-keyboard.rules": ROOT / "udev/71-passtap-keyboard.rules",
            "usr/lib/modules-load.d/passtap-keyboard.conf": ROOT / "udev/passtap-keyboard-modules.conf",
            "lib/systemd/system/passtap-keyboard.service": ROOT / "systemd/passtap-keyboard.service",
            "usr/lib/systemd/user/passtap-keyboard.service": ROOT / "systemd/user/passtap-keyboard.service",
            "etc/passtap/keyboard.toml": ROOT / "Config/keyboard.toml",
        }
        polkit = ROOT / "polkit/50-passtapd-pcscd.rules"
        if polkit.exists():
            expected["usr/share/polkit-1/rules.d/50-passtapd-pcscd.rules"] = polkit
        for installed, source in expected.items():
            self.assertEqual((self.root / installed).read_bytes(), source.read_bytes(), installed)

    def test_the_socket_units_the_browser_client_and_news_are_installed(self):
        for name in SOCKET_UNITS:
            self.assertEqual((self.root / "lib/systemd/system" / name).read_bytes(),
                             (ROOT / "systemd" / name).read_bytes(), name)
        # Pages vendor this file (docs/web.md): the package ships the one the dashboard uses.
        self.assertEqual((self.root / "usr/share/passtap/passtap.js").read_bytes(),
                         (ROOT / "Sources/PassTapDashboard/Files/passtap.js").read_bytes())
        # apt-listchanges shows NEWS.Debian's entries newer than the installed version.
        news = self.root / "usr/share/doc/passtap/NEWS.Debian.gz"
        self.assertEqual(gzip.decompress(news.read_bytes()), (ROOT / "packaging/debian/NEWS.Debian").read_bytes())
        newest = run(["dpkg-parsechangelog", "-l", str(ROOT / "packaging/debian/NEWS.Debian"), "-S", "Version"])
        package = run(["dpkg-deb", "-f", str(self.deb), "Version"]).stdout.strip()
        self.assertEqual(newest.returncode, 0, newest.stderr)
        self.assertEqual(run(["dpkg", "--compare-versions", newest.stdout.strip(), "le", package]).returncode, 0,
                         f"NEWS.Debian's newest entry {newest.stdout.strip()} is after the package's {package}")
        self.assertIn("auth_outdated", gzip.decompress(news.read_bytes()).decode())

    def test_the_config_is_a_conffile_that_passtapd_accepts(self):
        config = self.root / "etc/passtap/passtapd.toml"
        self.assertEqual(config.read_bytes(), (ROOT / "Config/passtapd.toml").read_bytes())
        status = (self.root / "var/lib/dpkg/status").read_text()
        self.assertRegex(status, r"Conffiles:\n /etc/passtap/passtapd.toml [0-9a-f]{32}\n /etc/passtap/keyboard.toml [0-9a-f]{32}")
        check = run([str(self.root / "usr/bin/passtapd"), "--check-config", str(config)])
        self.assertEqual(check.returncode, 0, check.stderr)
        self.assertIn(f"{config}: OK", check.stdout)

    def test_users_and_groups_are_made_in_the_root(self):
        passwd = entries(self.root / "etc/passwd")
        group = entries(self.root / "etc/group")
        self.assertIn("passtapd", passwd)
        _, _, uid, gid, _, home, shell = passwd["passtapd"]
        self.assertLess(int(uid), 1000, "passtapd must be a system user")
        self.assertEqual(home, "/nonexistent")
        self.assertEqual(shell, "/usr/sbin/nologin")
        self.assertEqual(group["passtapd"][2], gid, "passtapd's primary group is passtapd")
        self.assertIn("passtap", group)
        self.assertLess(int(group["passtap"][2]), 1000, "passtap must be a system group")
        self.assertIn("passtapd", group["dialout"][3].split(","), "passtapd is in dialout (serial readers)")
        # USB readers (udev/70-passtapd-nfc.rules) have a group of their own, with passtapd in it;
        # group passtapd, which may read merchant keys, has no one else (docs/operations.md, "Users,
        # groups and files").
        self.assertIn("passtap-nfc", group)
        self.assertLess(int(group["passtap-nfc"][2]), 1000, "passtap-nfc must be a system group")
        self.assertIn("passtapd", group["passtap-nfc"][3].split(","), "passtapd is in passtap-nfc (USB readers)")
        self.assertEqual([m for m in group["passtapd"][3].split(",") if m and m != "passtapd"], [])
        self.assertEqual([name for name, fields in passwd.items() if fields[3] == gid and name != "passtapd"], [])
        self.assertEqual(group["dialout"][2], "20", "dialout is base-passwd's, not a new group")
        # /dev/uinput's group (71-passtap-keyboard.rules) has the keyboard service's user alone: a
        # member can type into any session (docs/keyboard.md).
        self.assertIn("passtap-keyboard", passwd)
        self.assertLess(int(passwd["passtap-keyboard"][2]), 1000, "passtap-keyboard must be a system user")
        self.assertEqual([m for m in group["passtap-keyboard"][3].split(",") if m and m != "passtap-keyboard"], [])
        self.assertIn("passtap-keyboard", group["passtap"][3].split(","), "passtap-keyboard is in passtap (the socket's read role)")
        # Nothing of this machine's own accounts leaked in: only the new ones were added.
        base = entries(BASE_PASSWD / "passwd.master")
        self.assertEqual(set(passwd) - set(base), {"passtapd", "passtap-keyboard"})

    def test_the_key_folder_is_root_passtapd_0750(self):
        keys = self.root / "etc/passtap/keys"
        info = keys.stat()
        gid = int(entries(self.root / "etc/group")["passtapd"][2])
        self.assertEqual((info.st_uid, info.st_gid, info.st_mode & 0o7777), (0, gid, 0o750))

    def test_nothing_is_enabled_or_started(self):
        self.assertEqual(list(self.root.glob("etc/systemd/system/**/passtapd.service")), [])
        for script in ("postinst", "prerm", "postrm"):
            text = (self.root / f"var/lib/dpkg/info/passtap.{script}").read_text()
            code = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
            self.assertNotRegex(code, r"systemctl\s+(?:--\S+\s+)*(start|enable|restart|try-restart|reenable|unmask)")
            self.assertNotRegex(code, r"deb-systemd-helper\s+(enable|unmask)")
            self.assertNotRegex(code, r"deb-systemd-invoke\s+start")

    def test_binaries_have_no_runpath_and_are_stripped(self):
        for program in ("passtapd", "passtap"):
            path = self.root / "usr/bin" / program
            dynamic = run(["readelf", "-d", str(path)])
            self.assertEqual(dynamic.returncode, 0, dynamic.stderr)
            self.assertIn("(NEEDED)", dynamic.stdout)
            self.assertNotRegex(dynamic.stdout, r"\((RUNPATH|RPATH)\)", program)
            sections = run(["readelf", "-SW", str(path)])
            self.assertIn(".text", sections.stdout)
            self.assertNotRegex(sections.stdout, r"\.symtab|\.debug_", f"{program} is not stripped")
            # The Swift runtime is inside, not loaded from the build machine's toolchain.
            self.assertNotIn("libswiftCore", dynamic.stdout)
            # A headless till pulls in no X library: passtap keyboard's X11 output opens them with
            # dlopen (docs/keyboard.md); libxkbcommon and libevdev are not X libraries.
            self.assertNotRegex(dynamic.stdout, r"\[lib(X11|X11-xcb|Xtst|xcb|xkbcommon-x11)[.-]", program)

    def test_the_manual_pages_have_no_warnings(self):
        environment = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
        for page in MAN_PAGES:
            path = self.root / page
            self.assertTrue(path.is_file(), f"{page} is missing")
            shown = run(["man", "--warnings", "-l", str(path)], env=environment)
            self.assertEqual(shown.returncode, 0, shown.stderr)
            self.assertEqual(shown.stderr, "", f"man --warnings on {page}")
            self.assertIn("NAME", shown.stdout)
        version = re.search(r'static let string = "([^"]+)"',
                            (ROOT / "Sources/PassTapCore/PassTapVersion.swift").read_text()).group(1)
        config_page = gzip.decompress((self.root / MAN_PAGES[1]).read_bytes()).decode()
        self.assertRegex(config_page, rf'(?m)^\.TH PASSTAPD\.TOML 5 \d{{4}}-\d\d-\d\d "PassTap {re.escape(version)}"')
        # generate-manual read the binaries' own help.
        passtapd = gzip.decompress((self.root / MAN_PAGES[2]).read_bytes()).decode()
        self.assertIn("Fl -check-config Ar path", passtapd)
        passtap = gzip.decompress((self.root / MAN_PAGES[0]).read_bytes()).decode()
        self.assertIn("keygen", passtap)
        self.assertIn("owner", passtap)


@unittest.skipUnless(os.geteuid() == 0, "installs with dpkg into a root and chowns: run as root")
class PackageLifecycleTests(unittest.TestCase):
    """Reinstalling and purging, each on a root of its own."""

    @classmethod
    def setUpClass(cls):
        cls.deb = PackageSetup.get()

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="passtap-root-")
        self.addCleanup(self.tmp.cleanup)
        self.root = Path(self.tmp.name)
        make_root(self.root)
        dpkg(self.root, "-i", str(self.deb))

    def test_lintian_reports_no_errors(self):
        result = run(["lintian", "--fail-on", "error", "--no-tag-display-limit", str(self.deb)])
        errors = [line for line in result.stdout.splitlines() if line.startswith("E:")]
        self.assertEqual(errors, [], result.stdout)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        # The one override (packaging/debian/lintian-overrides says why): swift-nio-extras' zlib
        # copy, linked through async-http-client. A new embedded library must not hide behind it.
        overrides = (self.root / "usr/share/lintian/overrides/passtap").read_text().splitlines()
        tags = [line for line in overrides if line.strip() and not line.startswith("#")]
        self.assertEqual(tags, ["passtap: embedded-library zlib [usr/bin/passtapd]"])

    def test_purge_keeps_merchant_keys(self):
        keys = self.root / "etc/passtap/keys"
        key = keys / "pass.com.example.loyalty.pem"
        key.write_text("not a real key\n")
        key.chmod(0o600)
        dpkg(self.root, "--purge", "passtap")
        self.assertEqual(key.read_text(), "not a real key\n")
        self.assertEqual(keys.stat().st_mode & 0o7777, 0o750)
        self.assertFalse((self.root / "etc/passtap/passtapd.toml").exists(), "the conffile goes on purge")
        self.assertFalse((self.root / "usr/bin/passtapd").exists())
        status = run(["dpkg-query", f"--admindir={self.root}/var/lib/dpkg", "-W", "passtap"])
        self.assertNotEqual(status.returncode, 0, "passtap is still known to dpkg after the purge")

    def test_purge_removes_the_outbox_and_a_remove_keeps_it(self):
        """/var/lib/passtap holds the forwarding outbox: pending and dead events, whole pass
        messages where a sink has include_message = true. A purge removes it (keys stay)."""
        state = self.root / "var/lib/passtap"
        state.mkdir(parents=True)
        state.chmod(0o700)
        for name in ("outbox.sqlite", "outbox.sqlite-wal", "outbox.sqlite-shm"):
            (state / name).write_bytes(b"SQLite format 3\0")
        dpkg(self.root, "-r", "passtap")
        self.assertTrue((state / "outbox.sqlite").is_file(), "a remove must keep the outbox")
        dpkg(self.root, "--purge", "passtap")
        self.assertFalse(state.exists(), "the purge left /var/lib/passtap")
        self.assertTrue((self.root / "etc/passtap/keys").is_dir())

    def test_purge_of_an_empty_key_folder_still_keeps_it(self):
        dpkg(self.root, "--purge", "passtap")
        self.assertTrue((self.root / "etc/passtap/keys").is_dir())

    def test_upgrade_names_other_members_of_group_passtapd_and_removes_no_one(self):
        """An install from before 0.1.1 told people who run nfc-list to join group passtapd, which
        may read merchant keys. The upgrade names each of them and what to do, and changes nobody."""
        clean = dpkg(self.root, "-i", str(self.deb))  # setUp installed it: no one else is in passtapd
        self.assertNotIn("group passtapd can read merchant keys", clean.stdout + clean.stderr)
        group_file, passwd_file = self.root / "etc/group", self.root / "etc/passwd"
        gid = entries(group_file)["passtapd"][2]
        group_file.write_text(re.sub(r"(?m)^(passtapd:[^:]*:\d+:)(.*)$", r"\1\2,alice,bob", group_file.read_text()))
        with passwd_file.open("a") as passwd:
            passwd.write(f"carol:x:1003:{gid}::/home/carol:/bin/sh\n")
        before = group_file.read_text(), passwd_file.read_text()
        upgrade = dpkg(self.root, "-i", str(self.deb))
        said = upgrade.stdout + upgrade.stderr
        self.assertIn("group passtapd can read merchant keys", said)
        for advice in ("gpasswd -d alice passtapd", "gpasswd -d bob passtapd", "usermod -g GROUP carol",
                       "usermod -a -G passtap-nfc USER", "Nothing was changed"):
            self.assertIn(advice, said)
        self.assertNotIn("gpasswd -d passtapd", said)
        self.assertEqual((group_file.read_text(), passwd_file.read_text()), before)

    def test_reinstall_keeps_users_and_the_operators_key_folder_mode(self):
        keys = self.root / "etc/passtap/keys"
        keys.chmod(0o700)
        before = (self.root / "etc/passwd").read_text(), (self.root / "etc/group").read_text()
        dpkg(self.root, "-i", str(self.deb))
        self.assertEqual(keys.stat().st_mode & 0o7777, 0o700)
        self.assertEqual(((self.root / "etc/passwd").read_text(), (self.root / "etc/group").read_text()), before)


@unittest.skipUnless(os.geteuid() == 0, "installs with dpkg into a root and mounts in a namespace: run as root")
class MaintainerScriptTests(unittest.TestCase):
    """What the installed maintainer scripts ask of systemd on a running system (see
    run_maintainer_script): the socket units hold the TCP ports, so they are stopped on removal,
    before passtapd and in the same call, and never restarted or started on an upgrade."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="passtap-root-")
        cls.root = Path(cls.tmp.name)
        make_root(cls.root)
        dpkg(cls.root, "-i", str(PackageSetup.get()))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def script(self, name, *args, text=None):
        status, output, calls = run_maintainer_script(self.root, name, *args, text=text)
        self.assertEqual(status, 0, output)
        return calls

    def assert_no_socket_unit_started(self, calls):
        """No call starts, restarts or reloads a socket unit (each would rebind its port)."""
        for call in calls:
            if any(arg.endswith(".socket") for arg in call):
                self.assertEqual(call[:2], ["deb-systemd-invoke", "stop"], call)

    def test_remove_stops_the_socket_units_then_passtapd_in_one_call(self):
        calls = self.script("prerm", "remove")
        self.assertEqual(calls, [["deb-systemd-invoke", "stop", *SOCKET_UNITS, "passtapd.service"]])

    def test_an_upgrade_stops_nothing_and_restarts_passtapd_alone(self):
        self.assertEqual(self.script("prerm", "upgrade", "0.2.0"), [])
        calls = self.script("postinst", "configure", "0.1.1")
        self.assertIn(["systemctl", "--system", "daemon-reload"], calls)
        self.assertIn(["deb-systemd-invoke", "restart", "passtapd.service"], calls)
        self.assert_no_socket_unit_started(calls)
        self.assertEqual(self.script("postrm", "upgrade", "0.2.0"), [])

    def test_the_check_catches_a_socket_restart_on_upgrade(self):
        # What dh_installsystemd writes by default (restart after upgrade, every unit of the
        # package): it would free the ports while the socket units restart.
        installed = (self.root / "var/lib/dpkg/info/passtap.postinst").read_text()
        dh_like = installed.replace("restart passtapd.service", "restart passtapd-metrics.socket passtapd-web.socket passtapd.service")
        self.assertNotEqual(dh_like, installed)
        with self.assertRaises(AssertionError):
            self.assert_no_socket_unit_started(self.script("postinst", "configure", "0.1.1", text=dh_like))

    def test_a_first_install_starts_nothing(self):
        calls = self.script("postinst", "configure", "")
        self.assertEqual([call for call in calls if call[0] in ("deb-systemd-invoke", "deb-systemd-helper")], [])
        self.assertEqual([call for call in calls if call[0] == "systemctl"], [["systemctl", "--system", "daemon-reload"]])

    def test_postrm_remove_only_reloads_systemd(self):
        self.assertEqual(self.script("postrm", "remove"), [["systemctl", "--system", "daemon-reload"]])


if __name__ == "__main__":
    unittest.main()
