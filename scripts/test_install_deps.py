"""scripts/install-deps' two sets: the demo installs only what it builds and runs, the tests
everything, each package once.

Run from the repository root: python3 -m unittest scripts/test_install_deps.py
"""
import os
import re
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def package_set(profile):
    out = subprocess.run([os.path.join(ROOT, "scripts", "install-deps"), "--list", profile],
                         capture_output=True, text=True, check=True, timeout=30).stdout
    return out.split()


class InstallSetTests(unittest.TestCase):
    def test_each_package_is_listed_once(self):
        for profile in ("demo", "test"):
            packages = package_set(profile)
            self.assertEqual(len(packages), len(set(packages)), profile)

    def test_the_demo_installs_none_of_the_tests_tools(self):
        demo = set(package_set("demo"))
        for package in ("chromium", "chromium-driver", "lintian", "duktape", "postgresql", "strace",
                        "dpkg-dev", "python3-pip", "socat"):
            self.assertNotIn(package, demo)

    def test_the_demo_has_what_it_builds_and_runs_with(self):
        demo = set(package_set("demo"))
        # The system-library targets' pkg-config names, as Package.swift gives them, and their -dev packages.
        with open(os.path.join(ROOT, "Package.swift")) as file:
            providers = set(re.findall(r'\.apt\(\["([^"]+)"\]\)', file.read()))
        self.assertEqual(providers, {"libpcsclite-dev", "libnfc-dev", "zlib1g-dev", "libxkbcommon-dev", "libevdev-dev"})
        self.assertLessEqual(providers | {"pkg-config", "pcscd", "vsmartcard-vpcd", "python3-cryptography"}, demo)

    def test_the_tests_set_holds_the_demos(self):
        self.assertLessEqual(set(package_set("demo")), set(package_set("test")))

    def test_each_command_asks_for_its_own_set(self):
        with open(os.path.join(ROOT, "scripts", "demo")) as file:
            self.assertIn("scripts/install-deps demo\n", file.read())
        with open(os.path.join(ROOT, "scripts", "test")) as file:
            self.assertIn("scripts/install-deps test\n", file.read())

    def test_an_unknown_set_is_refused(self):
        done = subprocess.run([os.path.join(ROOT, "scripts", "install-deps"), "--list", "everything"],
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(done.returncode, 64)
        self.assertIn("usage", done.stderr)


if __name__ == "__main__":
    unittest.main()
