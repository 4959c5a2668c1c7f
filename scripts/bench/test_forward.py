"""scripts/bench/forward's own parts, without passtapd: its copy of the sink's schema and statement
follows what docs/fleet.md documents of the PostgreSQL sink (so the baseline stays the sink's
statement), its SQL literals, its webhook body is the one docs/fleet.md, "Webhooks" shows, the
figures from visible_at stamps, and the webhook receiver's events file read in pieces.

Run: python3 -m unittest scripts/bench/test_forward.py (scripts/test does).
"""

import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import passtaprig  # noqa: E402

forward = passtaprig.load_script("bench_forward", "scripts/bench/forward")

FLEET_DOC = os.path.join(passtaprig.ROOT, "docs/fleet.md")
ROW = ("6F1C:42", "till-3", 42, "6F1C", "read.result", "pcsc:Virtual PCD 00 00", "2026-11-26T21:04:05.123Z",
       '{"kind":"read.result","seq":42}')


def fleet_doc():
    with open(FLEET_DOC) as f:
        return f.read()


def documented_table():
    """The CREATE TABLE and CREATE INDEX of docs/fleet.md, "The table", without their comments
    and with white space folded."""
    doc = fleet_doc()
    block = re.search(r"### The table\n\n```sql\n(.*?)```", doc, re.S).group(1)
    return " ".join(re.sub(r"--[^\n]*", "", block).split()).replace("( ", "(").replace(" )", ")")


def columns(create_table):
    """(name, type and constraints) of each column in a CREATE TABLE statement."""
    body = create_table[create_table.index("(") + 1:create_table.rindex(")")]
    return [tuple(part.strip().split(" ", 1)) for part in body.split(",")]


class SchemaTests(unittest.TestCase):
    def test_the_table_is_the_sinks_plus_visible_at(self):
        documented = documented_table()
        sink_columns = columns(documented.split(";")[0])
        ours = columns(forward.table_sql("passtap_events", stamped=False).split(";\n")[0])
        self.assertEqual(ours, sink_columns)
        stamped = columns(forward.table_sql("t").split(";\n")[0])
        self.assertEqual(stamped[:-1], sink_columns)
        self.assertEqual(stamped[-1], ("visible_at", "timestamptz NOT NULL DEFAULT clock_timestamp()"))

    def test_the_time_index_is_the_sinks(self):
        self.assertIn("CREATE INDEX passtap_events_time_idx ON passtap_events (time);", documented_table())
        self.assertIn("`<table>_time_idx`", fleet_doc())
        self.assertIn("CREATE INDEX t_time_idx ON t (time);", forward.table_sql("t"))

    def test_the_insert_is_the_sinks_statement(self):
        column_list = ", ".join(name for name, _ in columns(documented_table().split(";")[0]))
        self.assertEqual(", ".join(forward.COLUMNS), column_list)
        doc = " ".join(fleet_doc().split())
        self.assertIn("in batches of up to %d rows, each batch one `INSERT ... ON CONFLICT (id) DO NOTHING`"
                      % forward.BATCH, doc)
        statement = forward.insert_sql("t", [ROW, ROW])
        self.assertTrue(statement.startswith("INSERT INTO t (%s) VALUES (" % column_list))
        self.assertTrue(statement.endswith(") ON CONFLICT (id) DO NOTHING;\n"))
        self.assertEqual(statement.count("::jsonb)"), 2)

    def test_literals(self):
        self.assertEqual(forward.sql_literal(None), "NULL")
        self.assertEqual(forward.sql_literal(42), "42")
        self.assertEqual(forward.sql_literal("it's"), "'it''s'")
        self.assertEqual(forward.sql_literal('a\\"b'), "'a\\\"b'")  # backslashes stay as they are


class EnvelopeTests(unittest.TestCase):
    def test_the_body_is_the_documented_one(self):
        body = forward.envelope(ROW)
        # docs/fleet.md, "Webhooks" shows the body: data, id, source, timestamp, type, compact.
        example = re.search(r'^(\{"data":\{\.\.\.the event\.\.\.\},.*\})$', fleet_doc(), re.M).group(1)
        order = re.findall(r'[{,]"(\w+)":', example.replace("{...the event...}", "null"))
        self.assertEqual(order, ["data", "id", "source", "timestamp", "type"])
        self.assertEqual(list(json.loads(body)), order)
        self.assertTrue(body.startswith(b'{"data":{"kind":"read.result","seq":42},"id":"6F1C:42",'))
        self.assertEqual(json.loads(body)["timestamp"], ROW[6])

    def test_times_as_passtapd_writes_them(self):
        self.assertEqual(forward.rfc3339_ms(1_764_191_045_123), "2025-11-26T21:04:05.123Z")
        self.assertEqual(forward.rfc3339_ms(1_764_191_045_007), "2025-11-26T21:04:05.007Z")


class FigureTests(unittest.TestCase):
    def test_drain_figures(self):
        start_ns = 1_000_000_000_000
        visible = {seq: start_ns // 1000 + 500_000 + (seq - 1) * 1000 for seq in range(1, 1001)}  # 0.5 s, then 1 ms a row
        figures = forward.drain_figures(visible, start_ns, 1000)
        self.assertAlmostEqual(figures["start_to_first_s"], 0.5)
        self.assertAlmostEqual(figures["first_to_last_s"], 0.999)
        self.assertAlmostEqual(figures["rate_first_to_last"], 1000.0)
        self.assertAlmostEqual(figures["rate_from_start"], 1000 / 1.499)

    def test_latency_rows(self):
        tap = {"samples": {"socket_us": [1000, 2000, 3000], "direct_us": [2000, 3000, 4000],
                           "forwarded_us": [5000, 3000, 9000]}}
        rows = {r["what"]: r for r in forward.latency_rows(tap)}
        added = rows["through the outbox minus direct, same tap"]
        self.assertEqual((added["median_ms"], added["max_ms"]), (3.0, 5.0))
        self.assertEqual(rows["row visible, direct INSERT (baseline)"]["median_ms"], 3.0)

    def test_clock_offset(self):
        import time
        self.assertLess(abs(forward.wall_offset_ns() - (time.time_ns() - time.monotonic_ns())), 5_000_000)


class EventsFileTests(unittest.TestCase):
    def test_a_partly_written_line_waits_for_the_next_read(self):
        with tempfile.TemporaryDirectory() as folder:
            receiver = forward.WebhookReceiver.__new__(forward.WebhookReceiver)
            receiver.events_path = os.path.join(folder, "events.jsonl")
            with open(receiver.events_path, "w") as f:
                f.write(json.dumps({"id": "a:1"}) + "\n" + '{"id": "a:')
            ids = []
            offset = receiver.accepted_ids(ids, 0)
            self.assertEqual(ids, ["a:1"])
            with open(receiver.events_path, "a") as f:
                f.write('2"}\n')
            self.assertEqual(receiver.accepted_ids(ids, offset), os.path.getsize(receiver.events_path))
            self.assertEqual(ids, ["a:1", "a:2"])


if __name__ == "__main__":
    unittest.main()
