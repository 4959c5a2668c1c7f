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
# Issue 28: the whole run in 30 minutes on 2 cores.
TOTAL_BUDGET_SECONDS = 30 * 60


def phase_budgets(script):
    """(name, budget) of every `phase NAME BUDGET ...` line of a script."""
    with open(os.path.join(ROOT, script)) as file:
        text = file.read()
    return [(m.group(2), int(m.group(3))) for m in re.finditer(r"\bphase (['\"])(.*?)\1 (\d+) ", text)]


class BudgetTests(unittest.TestCase):
    def test_the_test_runs_budgets_add_up_to_thirty_minutes_or_less(self):
        budgets = phase_budgets("scripts/test")
        self.assertGreater(len(budgets), 20, budgets)
        total = sum(budget for _, budget in budgets)
        self.assertLessEqual(total, TOTAL_BUDGET_SECONDS, "the budgets of scripts/test add up to %d s" % total)

    def test_every_phase_has_a_name_of_its_own_and_a_budget(self):
        budgets = phase_budgets("scripts/test")
        names = [name for name, _ in budgets]
        self.assertEqual(len(names), len(set(names)), names)
        for name, budget in budgets:
            self.assertGreater(budget, 0, name)

    def test_every_bench_of_scripts_bench_all_runs_in_the_test_run_too(self):
        # CI runs each bench at smoke size, so that a broken bench is caught there.
        def benches(script):
            with open(os.path.join(ROOT, script)) as file:
                return set(re.findall(r"scripts/bench/(\w+) --", file.read()))
        by_hand = benches("scripts/bench/all")
        self.assertEqual(len(by_hand), 7, by_hand)
        self.assertLessEqual(by_hand, benches("scripts/test"))


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
