"""scripts/lib/phases.bash, the timer of scripts/test's phases, and scripts/test's budgets.

Run from the repository root: python3 -m unittest scripts/test_phases.py
"""
import os
import re
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PHASES = os.path.join(ROOT, "scripts", "lib", "phases.bash")
# The whole run in 30 minutes on 2 cores (docs/development.md, "The test run").
TOTAL_BUDGET_SECONDS = 30 * 60


def phase_budgets(script):
    """(name, budget) of every `phase NAME BUDGET ...` line of a script."""
    with open(os.path.join(ROOT, script)) as file:
        text = file.read()
    return [(m.group(2), int(m.group(3))) for m in re.finditer(r"\bphase (['\"])(.*?)\1 (\d+) ", text)]


def run_benches(size, *arguments):
    """The phases scripts/lib/benches.bash runs at SIZE: (name, budget, command line), with
    `phase` stubbed to print them instead of running anything."""
    stub = 'phase() { printf "%s\\t%s\\t" "$1" "$2"; shift 2; echo "$*"; }\n'
    script = stub + "source scripts/lib/benches.bash\nrun_benches %s DIR %s\n" % (size, " ".join(arguments))
    out = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True, timeout=30).stdout
    return [tuple(line.split("\t")) for line in out.splitlines()]


class BudgetTests(unittest.TestCase):
    def test_the_test_runs_budgets_add_up_to_thirty_minutes_or_less(self):
        budgets = phase_budgets("scripts/test") + [(name, int(budget)) for name, budget, _ in run_benches("smoke")]
        self.assertGreater(len(budgets), 25, budgets)
        total = sum(budget for _, budget in budgets)
        self.assertLessEqual(total, TOTAL_BUDGET_SECONDS, "the budgets of scripts/test add up to %d s" % total)

    def test_every_phase_has_a_name_of_its_own_and_a_budget(self):
        budgets = phase_budgets("scripts/test") + [(name, int(budget)) for name, budget, _ in run_benches("smoke")]
        names = [name for name, _ in budgets]
        self.assertEqual(len(names), len(set(names)), names)
        for name, budget in budgets:
            self.assertGreater(budget, 0, name)

    def test_every_bench_but_the_by_hand_ones_runs_at_both_sizes(self):
        # CI runs each at smoke size, so that a broken bench is caught there; scripts/bench/all at full size.
        folder = os.path.join(ROOT, "scripts", "bench")
        scripts = {name for name in os.listdir(folder)
                   if os.access(os.path.join(folder, name), os.X_OK) and "." not in name}
        by_hand = {"all", "compare", "metrics"}
        smoke, full = run_benches("smoke"), run_benches("full", "--write")
        self.assertEqual({name.removeprefix("bench: ") for name, _, _ in smoke}, scripts - by_hand)
        self.assertEqual([name for name, _, _ in smoke], [name for name, _, _ in full])
        for (name, smoke_budget, smoke_command), (_, full_budget, full_command) in zip(smoke, full):
            self.assertNotEqual(smoke_command, full_command.removesuffix(" --write"), name)
            self.assertLess(int(smoke_budget), int(full_budget), name)
            self.assertNotIn("--write", smoke_command, name)
        # --write reaches every bench that has a section of its own to replace.
        self.assertEqual({name for name, _, command in full if command.endswith("--write")},
                         {"bench: " + name for name in ("run", "vas", "nfc", "fanout", "web", "forward")})

    def test_ci_runs_the_smoke_sizes_and_the_by_hand_script_the_full_ones(self):
        with open(os.path.join(ROOT, "scripts", "test")) as file:
            self.assertIn("run_benches smoke .build-package/release", file.read())
        with open(os.path.join(ROOT, "scripts", "bench", "all")) as file:
            self.assertIn('run_benches full "$release"', file.read())


class PhaseTableTests(unittest.TestCase):
    def run_script(self, body):
        with tempfile.TemporaryDirectory() as folder:
            script = os.path.join(folder, "run")
            table = os.path.join(folder, "table.tsv")
            with open(script, "w") as file:
                file.write("set -euo pipefail\nsource %s\n%s\n" % (PHASES, body))
            done = subprocess.run(["bash", script], capture_output=True, text=True, timeout=60,
                                  env=dict(os.environ, PASSTAP_PHASES_FILE=table))
            with open(table) as file:
                rows = [line.rstrip("\n").split("\t") for line in file]
        return done, rows

    def test_a_phase_over_its_budget_is_reported_not_failed(self):
        done, rows = self.run_script("phase 'slow' 0 sleep 0.05\nphase 'quick' 60 true")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual([(row[0], row[3]) for row in rows[:2]], [("slow", "over budget"), ("quick", "ok")])
        self.assertGreaterEqual(float(rows[0][1]), 0.05)
        self.assertEqual(rows[-1][0], "total")
        self.assertEqual(rows[-1][2], "60")
        self.assertIn("over budget", done.stderr)

    def test_a_failed_phase_stops_the_run_and_the_table_shows_it(self):
        done, rows = self.run_script("phase 'first' 60 true\nphase 'broken' 60 bash -c 'exit 3'\nphase 'never' 60 true")
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertEqual([(row[0], row[3]) for row in rows[:-1]], [("first", "ok"), ("broken", "FAILED (3)")])
        self.assertIn("broken", done.stderr.split("phase ")[-1])
        self.assertNotIn("never ", done.stderr.replace("phase: never", ""))

    def test_keep_going_counts_a_failure_and_goes_on(self):
        done, rows = self.run_script(
            "phase_keep_going=1\nphase 'broken' 60 false || echo counted\nphase 'after' 60 true")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("counted", done.stdout)
        self.assertEqual([(row[0], row[3]) for row in rows[:-1]], [("broken", "FAILED (1)"), ("after", "ok")])


if __name__ == "__main__":
    unittest.main()
