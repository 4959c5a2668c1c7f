"""Checks polkit/50-passtapd-pcscd.rules in Duktape, the JavaScript engine Debian 12's polkitd uses.

polkitd needs the system bus and a pcscd built with polkit, which Debian 12 does not have, so the
rule is run here the way polkitd runs it: Duktape's `duk` (package duktape, the same engine as
polkitd 122's libduktape207) loads a small stand-in for polkitd's `polkit` object, then the rule
file, then asks it about subjects and actions. polkitd's API (polkit(8)): `polkit.addRule(f)`, f
called as f(action, subject) with `action.id` and `subject.user`, `subject.groups`,
`subject.isInGroup()`; rules run in order and the first answer other than null/undefined wins.
A syntax Duktape refuses (an arrow function, say) fails as it would make polkitd skip the file.

Run from the repository root: python3 -m unittest scripts/test_polkit_rule.py
"""
import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULE = ROOT / "polkit" / "50-passtapd-pcscd.rules"
ACCESS_PCSC = "org.debian.pcsc-lite.access_pcsc"
ACCESS_CARD = "org.debian.pcsc-lite.access_card"

# Our stand-in for the runtime polkitd gives rules (written from polkit(8), not copied).
PRELUDE = """
var polkit = {
    Result: {NO: "no", YES: "yes", AUTH_SELF: "auth_self", AUTH_SELF_KEEP: "auth_self_keep",
             AUTH_ADMIN: "auth_admin", AUTH_ADMIN_KEEP: "auth_admin_keep", NOT_HANDLED: null},
    _rules: [],
    addRule: function (rule) { this._rules.push(rule); },
    addAdminRule: function (rule) { },
    log: function (message) { },
    spawn: function (argv) { throw new Error("spawn is not expected in this rule"); }
};
function Action(id, details) {
    this.id = id;
    this.lookup = function (name) { return details[name]; };
}
function Subject(user, groups) {
    this.user = user;
    this.groups = groups;
    this.pid = 4242; this.seat = ""; this.session = ""; this.local = false; this.active = false;
    this.isInGroup = function (group) { return this.groups.indexOf(group) >= 0; };
    this.isInNetGroup = function (group) { return false; };
}
"""

ASK = """
var answers = [];
for (var n = 0; n < CASES.length; n++) {
    var action = new Action(CASES[n].action, CASES[n].details || {});
    var subject = new Subject(CASES[n].user, CASES[n].groups);
    var answer = null;
    for (var r = 0; r < polkit._rules.length; r++) {
        var result = polkit._rules[r](action, subject);
        if (result !== null && result !== undefined) { answer = result; break; }
    }
    answers.push(answer);
}
print(JSON.stringify({rules: polkit._rules.length, answers: answers}));
"""


class RuleError(Exception):
    pass


def ask(rule_text, cases):
    """({rules: number of rules added, answers: [...]}) for each case, from Duktape."""
    with tempfile.TemporaryDirectory() as folder:
        files = []
        for name, text in (("prelude.js", PRELUDE), ("rule.rules", rule_text),
                           ("ask.js", "var CASES = " + json.dumps(cases) + ";\n" + ASK)):
            path = Path(folder) / name
            path.write_text(text)
            files.append(str(path))
        result = subprocess.run(["duk"] + files, capture_output=True, text=True)
        if result.returncode != 0:
            raise RuleError((result.stdout + result.stderr).strip())
        return json.loads(result.stdout.strip().splitlines()[-1])


CASES = [
    # (user, groups, action, expected answer)
    ("passtapd", ["passtapd", "passtap", "dialout"], ACCESS_PCSC, "yes"),
    ("passtapd", ["passtapd"], ACCESS_CARD, "yes"),
    ("passtapd", ["passtapd"], "org.freedesktop.login1.reboot", None),
    ("passtapd", ["passtapd"], "org.debian.pcsc-lite.access_pcsc_admin", None),
    ("pos", ["pos", "passtap", "passtapd"], ACCESS_PCSC, None),  # groups grant nothing
    ("pos", ["pos"], ACCESS_CARD, None),
    ("root", ["root"], ACCESS_PCSC, None),
    ("nobody", ["nogroup"], ACCESS_CARD, None),
    ("passtapd2", ["passtapd"], ACCESS_PCSC, None),
]


def expectations(rule_text):
    cases = [{"user": user, "groups": groups, "action": action, "details": {"reader": "ACS ACR1252 00 00"}}
             for user, groups, action, _ in CASES]
    return ask(rule_text, cases), [expected for *_, expected in CASES]


class PolkitRuleTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not shutil.which("duk"):
            raise AssertionError("duk (package duktape) is missing: scripts/install-deps installs it")

    def test_the_rule_allows_only_passtapd_and_only_the_two_pcsc_actions(self):
        result, expected = expectations(RULE.read_text())
        self.assertEqual(result["rules"], 1)
        self.assertEqual(result["answers"], expected)

    def test_a_rule_that_allows_everyone_is_caught(self):
        loose = RULE.read_text().replace('subject.user == "passtapd"', "true")
        self.assertNotEqual(loose, RULE.read_text())
        result, expected = expectations(loose)
        self.assertNotEqual(result["answers"], expected)

    def test_syntax_duktape_refuses_is_caught(self):
        with self.assertRaises(RuleError) as caught:
            ask('polkit.addRule((action, subject) => polkit.Result.YES);\n', [])
        self.assertIn("SyntaxError", str(caught.exception))
        with self.assertRaises(RuleError):
            ask(RULE.read_text().rstrip().rstrip(";").rstrip(")"), [])

    def test_the_rule_names_the_actions_pcsc_lite_defines(self):
        # pcsc-lite's polkit policy (org.debian.pcsc-lite.policy) defines exactly these two.
        text = RULE.read_text()
        self.assertIn(f'"{ACCESS_PCSC}"', text)
        self.assertIn(f'"{ACCESS_CARD}"', text)


if __name__ == "__main__":
    unittest.main()
