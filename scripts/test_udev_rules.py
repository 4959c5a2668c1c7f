"""Checks udev/*.rules and udev/passtapd-blacklist.conf (stdlib only, no udevadm needed).

Run from the repository root: python3 -m unittest scripts/test_udev_rules.py
"""
import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UDEV_DIR = ROOT / "udev"
BLACKLIST = UDEV_DIR / "passtapd-blacklist.conf"
# Debian 12's libnfc6 ships this file; merged /usr makes both paths the same file.
DEBIAN_RULES = [Path("/lib/udev/rules.d/93-pn53x.rules"), Path("/usr/lib/udev/rules.d/93-pn53x.rules")]

# libnfc 1.8.0 (tag libnfc-1.8.0): every USB id of libnfc/drivers/pn53x_usb.c
# (pn53x_usb_supported_devices[]) and libnfc/drivers/acr122_usb.c (acr122_usb_supported_devices[]).
LIBNFC_1_8_0_USB_IDS = {
    ("04cc", "0531"),  # pn53x_usb: Philips / PN531
    ("04cc", "2533"),  # pn53x_usb: NXP / PN533
    ("04e6", "5591"),  # pn53x_usb: SCM Micro / SCL3711-NFC&RW
    ("04e6", "5594"),  # pn53x_usb: SCM Micro / SCL3712-NFC&RW
    ("054c", "0193"),  # pn53x_usb: Sony / PN531
    ("1fd3", "0608"),  # pn53x_usb: ASK / LoGO
    ("054c", "02e1"),  # pn53x_usb: Sony / FeliCa S360 [PaSoRi]
    ("072f", "2200"),  # acr122_usb: ACS ACR122
    ("072f", "90cc"),  # acr122_usb: Touchatag
    ("072f", "2214"),  # acr122_usb: ACS ACR1222
}

# The reader devices' group. Not passtapd: that group may read merchant keys (0640 root:passtapd),
# and a person who needs nfc-list joins the readers' group (docs/operations.md, "Users, groups and
# files").
READER_GROUP = "passtap-nfc"
KEY_GROUP = "passtapd"

MATCH = {"==", "!="}
# Operators per key, as systemd-udevd (252) accepts them; see udev(7) and src/udev/udev-rules.c.
# "attr": whether KEY{attr} is required (True), forbidden (False) or optional (None).
KEYS = {
    # match-only keys
    "ACTION": (MATCH, False), "DEVPATH": (MATCH, False), "KERNEL": (MATCH, False),
    "KERNELS": (MATCH, False), "SUBSYSTEM": (MATCH, False), "SUBSYSTEMS": (MATCH, False),
    "DRIVER": (MATCH, False), "DRIVERS": (MATCH, False), "ATTRS": (MATCH, True),
    "TAGS": (MATCH, False), "TEST": (MATCH, None), "RESULT": (MATCH, False), "CONST": (MATCH, True),
    # keys that match with ==/!= and assign otherwise
    "NAME": (MATCH | {"=", ":="}, False), "SYMLINK": (MATCH | {"=", "+=", "-=", ":="}, False),
    "ENV": (MATCH | {"=", "+="}, True), "TAG": (MATCH | {"=", "+=", "-="}, False),
    "ATTR": (MATCH | {"="}, True), "SYSCTL": (MATCH | {"="}, True),
    # PROGRAM and IMPORT always match; "=" is taken as "==".
    "PROGRAM": (MATCH | {"="}, False), "IMPORT": (MATCH | {"="}, True),
    # assignment-only keys
    "OWNER": ({"=", ":="}, False), "GROUP": ({"=", ":="}, False), "MODE": ({"=", ":="}, False),
    "SECLABEL": ({"=", "+="}, True), "RUN": ({"=", "+=", ":="}, None),
    "OPTIONS": ({"=", "+=", ":="}, False), "GOTO": ({"="}, False), "LABEL": ({"="}, False),
}

TOKEN = re.compile(
    r'\s*(?P<key>[A-Za-z_]+)(?:\{(?P<attr>[^}]*)\})?\s*(?P<op>==|!=|\+=|-=|:=|=)\s*'
    r'"(?P<value>(?:[^"\\]|\\.)*)"\s*'
)


class RuleError(ValueError):
    pass


def parse_rule(text):
    """One rule line -> [(key, attr, op, value)], or RuleError."""
    tokens, pos = [], 0
    while True:
        m = TOKEN.match(text, pos)
        if not m:
            raise RuleError(f"expected KEY[{{attr}}] OPERATOR \"value\" at column {pos + 1}: {text[pos:]!r}")
        key, attr, op, value = m.group("key", "attr", "op", "value")
        if key not in KEYS:
            raise RuleError(f"unknown key {key!r}")
        ops, needs_attr = KEYS[key]
        if op not in ops:
            raise RuleError(f"{key} does not take {op!r} (it takes {', '.join(sorted(ops))})")
        if needs_attr is True and not attr:
            raise RuleError(f"{key} needs {key}{{attribute}}")
        if needs_attr is False and attr is not None:
            raise RuleError(f"{key} takes no {{attribute}}")
        tokens.append((key, attr, op, value))
        pos = m.end()
        if pos == len(text):
            return tokens
        if text[pos] != ",":
            raise RuleError(f"expected ',' or end of line at column {pos + 1}: {text[pos:]!r}")
        pos += 1


def parse_rules_file(path):
    """-> [(line number, tokens)]; raises RuleError naming file:line."""
    rules = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line.rstrip().endswith("\\"):
            raise RuleError(f"{path}:{number}: line continuation; write one rule per line")
        try:
            rules.append((number, parse_rule(stripped)))
        except RuleError as e:
            raise RuleError(f"{path}:{number}: {e}") from None
    return rules


def usb_ids(tokens):
    """(idVendor, idProduct) an ATTR/ATTRS == match names, or None; values lower-cased."""
    found = {a: v.lower() for k, a, op, v in tokens
             if k in ("ATTR", "ATTRS") and op == "==" and a in ("idVendor", "idProduct")}
    if not found:
        return None
    return found.get("idVendor"), found.get("idProduct")


def our_rule_files():
    return sorted(UDEV_DIR.glob("*.rules"))


def our_rules():
    return [(path, n, t) for path in our_rule_files() for n, t in parse_rules_file(path)]


# passtap keyboard's rule (docs/keyboard.md): /dev/uinput, for its own group; checked on its own.
KEYBOARD_RULES = UDEV_DIR / "71-passtap-keyboard.rules"


def reader_rules():
    """The rules of the readers' files: every file but the keyboard's."""
    return [(path, n, t) for path, n, t in our_rules() if path != KEYBOARD_RULES]


class ParserTests(unittest.TestCase):
    """The parser rejects what udev rejects, so the file checks below can fail."""

    def test_accepts(self):
        self.assertEqual(parse_rule('ATTR{idVendor}=="072f", MODE:="0660", TAG+="x"'),
                         [("ATTR", "idVendor", "==", "072f"), ("MODE", None, ":=", "0660"),
                          ("TAG", None, "+=", "x")])

    def test_rejects(self):
        for bad in ['MODE=="0660"', 'SUBSYSTEM="usb"', 'GROUP-="x"', 'ATTRS{idVendor}="072f"',
                    'ATTR=="x"', 'FOO=="x"', 'MODE="0660" GROUP="x"', 'MODE="0660",',
                    'MODE=0660', 'MODE ~ "0660"', 'SUBSYSTEM=="usb", # comment']:
            with self.subTest(bad=bad), self.assertRaises(RuleError):
                parse_rule(bad)


class RulesTests(unittest.TestCase):
    def test_every_line_parses(self):
        self.assertTrue(our_rule_files(), f"no *.rules in {UDEV_DIR}")
        for path in our_rule_files():
            with self.subTest(file=path.name):
                parse_rules_file(path)  # raises RuleError with file:line

    def test_gotos_have_labels(self):
        for path in our_rule_files():
            rules = parse_rules_file(path)
            labels = {v for _, t in rules for k, _, _, v in t if k == "LABEL"}
            for n, t in rules:
                for k, _, _, v in t:
                    if k == "GOTO":
                        self.assertIn(v, labels, f"{path}:{n}: GOTO to a missing LABEL {v!r}")

    def test_device_rules_give_the_reader_group_0660(self):
        """Every rule that matches a device or sets its access: one USB device, GROUP:="passtap-nfc",
        MODE:= with group rw and nothing looser than 0660, assigned finally (":=") so that a later
        rule (Debian's 93-pn53x.rules: GROUP="plugdev", MODE="0664") cannot undo it."""
        device_rules = [(p, n, t) for p, n, t in reader_rules()
                        if usb_ids(t) or any(k in ("MODE", "GROUP", "OWNER") for k, *_ in t)]
        self.assertTrue(device_rules)
        for path, n, t in device_rules:
            where = f"{path}:{n}"
            ids = usb_ids(t)
            self.assertTrue(ids and all(ids), f"{where}: needs idVendor and idProduct")
            for want in [("SUBSYSTEM", None, "==", "usb"), ("ENV", "DEVTYPE", "==", "usb_device")]:
                self.assertIn(want, t, f"{where}: needs {want[0]}{{{want[1]}}}==\"{want[3]}\"")
            groups = [(op, v) for k, _, op, v in t if k == "GROUP"]
            self.assertEqual(groups, [(":=", READER_GROUP)], f"{where}: needs GROUP:=\"{READER_GROUP}\"")
            self.assertFalse([k for k, *_ in t if k == "OWNER"], f"{where}: sets OWNER")
            modes = [(op, v) for k, _, op, v in t if k == "MODE"]
            self.assertEqual(len(modes), 1, f"{where}: needs one MODE")
            op, value = modes[0]
            self.assertEqual(op, ":=", f"{where}: MODE must be final (:=)")
            self.assertRegex(value, r"^0?[0-7]{3}$", f"{where}: MODE {value!r} is not octal")
            mode = int(value, 8)
            self.assertEqual(mode & ~0o660, 0, f"{where}: MODE {value} is looser than 0660")
            self.assertEqual(mode & 0o060, 0o060, f"{where}: MODE {value} gives the group no rw")

    def test_uinput_goes_to_the_keyboard_group_0660_as_a_static_node(self):
        """/dev/uinput: group passtap-keyboard (never passtapd, never the readers' group), mode 0660,
        static_node so the node has them before the module loads; and the module is loaded."""
        rules = parse_rules_file(KEYBOARD_RULES)
        self.assertEqual(len(rules), 1)
        _, tokens = rules[0]
        self.assertIn(("KERNEL", None, "==", "uinput"), tokens)
        self.assertIn(("SUBSYSTEM", None, "==", "misc"), tokens)
        self.assertEqual([(op, v) for k, _, op, v in tokens if k == "GROUP"], [("=", "passtap-keyboard")])
        self.assertEqual([(op, v) for k, _, op, v in tokens if k == "MODE"], [("=", "0660")])
        self.assertIn(("OPTIONS", None, "+=", "static_node=uinput"), tokens)
        modules = [line.strip() for line in (UDEV_DIR / "passtap-keyboard-modules.conf").read_text().splitlines()
                   if line.strip() and not line.startswith("#")]
        self.assertEqual(modules, ["uinput"])

    def test_no_device_gets_the_key_group_and_the_advice_names_the_reader_group(self):
        """No rule, and no advice to a person (the rules' comments, udev/README.md), gives the readers
        or their users group passtapd, which may read merchant keys."""
        for path, n, t in our_rules():
            self.assertNotIn(KEY_GROUP, [v for k, _, _, v in t if k == "GROUP"], f"{path}:{n}")
        readme = (UDEV_DIR / "README.md").read_text()
        for path, text in [(p, p.read_text()) for p in our_rule_files()] + [(UDEV_DIR / "README.md", readme)]:
            self.assertNotRegex(text, rf'GROUP:?="{KEY_GROUP}"', f"{path}: a rule with group {KEY_GROUP}")
            self.assertNotRegex(text, rf"-G\s+{KEY_GROUP}\b", f"{path}: tells someone to join {KEY_GROUP}")
            self.assertNotRegex(text, rf"groupadd --system {KEY_GROUP}\b", f"{path}: makes {KEY_GROUP} for readers")
        self.assertIn(f"usermod -a -G {READER_GROUP} USER", readme)
        self.assertIn(f"groupadd --system {READER_GROUP}", readme)

    def test_one_rule_per_id(self):
        seen = {}
        for path, n, t in our_rules():
            ids = usb_ids(t)
            if ids:
                self.assertNotIn(ids, seen, f"{path}:{n}: {ids} already at line {seen.get(ids)}")
                self.assertRegex(":".join(ids), r"^[0-9a-f]{4}:[0-9a-f]{4}$", f"{path}:{n}")
                seen[ids] = n

    def test_ids_equal_libnfc_1_8_0(self):
        ours = {usb_ids(t) for _, _, t in our_rules() if usb_ids(t)}
        self.assertEqual(ours - LIBNFC_1_8_0_USB_IDS, set(), "ids libnfc 1.8.0 does not drive")
        self.assertEqual(LIBNFC_1_8_0_USB_IDS - ours, set(), "libnfc 1.8.0 ids without a rule")

    def test_covers_debian_93_pn53x(self):
        debian = next((p for p in DEBIAN_RULES if p.exists()), None)
        if debian is None:
            self.skipTest("no 93-pn53x.rules (Debian's libnfc6 not installed): "
                          f"looked at {', '.join(map(str, DEBIAN_RULES))}")
        theirs = {usb_ids(t) for _, t in parse_rules_file(debian) if usb_ids(t)}
        self.assertTrue(theirs, f"{debian}: no idVendor/idProduct pairs found")
        ours = {usb_ids(t) for _, _, t in our_rules() if usb_ids(t)}
        self.assertEqual(theirs - ours, set(), f"ids in {debian} without a rule of ours")


class BlacklistTests(unittest.TestCase):
    def test_blacklist(self):
        blacklisted = set()
        for n, line in enumerate(BLACKLIST.read_text().splitlines(), 1):
            words = line.split()
            where = f"{BLACKLIST}:{n}"
            if not words or words[0].startswith("#"):
                continue
            name_ok = len(words) > 1 and re.fullmatch(r"[A-Za-z0-9_-]+", words[1])
            if words[0] == "blacklist":
                self.assertTrue(len(words) == 2 and name_ok, f"{where}: want 'blacklist NAME': {line!r}")
                blacklisted.add(words[1].replace("-", "_"))  # modprobe treats - and _ alike
            elif words[0] == "install":
                self.assertTrue(len(words) > 2 and name_ok, f"{where}: want 'install NAME COMMAND': {line!r}")
            else:
                self.fail(f"{where}: only 'blacklist', 'install' and comments here: {line!r}")
        self.assertEqual({"pn533", "pn533_usb", "nfc"} - blacklisted, set(), "modules not blacklisted")


if __name__ == "__main__":
    unittest.main()
