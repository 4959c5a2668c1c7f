"""scripts/bench/forward's own parts, without passtapd: its copy of the sink's schema and statement
follows the sink's Swift source (so the baseline stays the sink's statement), its SQL literals,
its webhook body is ForwardEnvelope's, the figures from visible_at stamps, and the webhook
receiver's events file read in pieces.

Run: python3 -m unittest scripts/bench/test_forward.py (scripts/test does).
"""

import importlib.machinery
import importlib.util
import json
import os
import re
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_loader = importlib.machinery.SourceFileLoader("bench_forward", os.path.join(ROOT, "scripts/bench/forward"))
forward = importlib.util.module_from_spec(importlib.util.spec_from_loader("bench_forward", _loader))
_loader.exec_module(forward)

TABLE_SWIFT = os.path.join(ROOT, "Sources/Features/Forward/Service/Postgres/PostgresEventTable.swift")
ENVELOPE_SWIFT = os.path.join(ROOT, "Sources/Features/Forward/Service/Delivery/ForwardEnvelope.swift")
ROW = ("6F1C:42", "till-3", 42, "6F1C", "read.result", "pcsc:Virtual PCD 00 00", "2026-11-26T21:04:05.123Z",
       '{"kind":"read.result","seq":42}')


def swift_source(path):
    with open(path) as f:
        return f.read()


def columns(create_table):
    """(name, type and constraints) of each column in a CREATE TABLE statement."""
    body = create_table[create_table.index("(") + 1:create_table.rindex(")")]
    return [tuple(part.strip().split(" ", 1)) for part in body.split(",")]


class SchemaTests(unittest.TestCase):
    def test_the_table_is_the_sinks_plus_visible_at(self):
        swift = swift_source(TABLE_SWIFT)
        sink = re.search(r'CREATE TABLE IF NOT EXISTS \\\(quotedName\) \(\\\n(.*?)"""', swift, re.S).group(1)
        sink_columns = [tuple(part.strip().rstrip(")").split(" ", 1))
                        for part in sink.replace("\\\n", "").split(",") if part.strip()]
        ours = columns(forward.table_sql("t", stamped=False).split(";\n")[0])
        self.assertEqual(ours, sink_columns)
        stamped = columns(forward.table_sql("t").split(";\n")[0])
        self.assertEqual(stamped[:-1], sink_columns)
        self.assertEqual(stamped[-1], ("visible_at", "timestamptz NOT NULL DEFAULT clock_timestamp()"))

    def test_the_time_index_is_the_sinks(self):
        swift = swift_source(TABLE_SWIFT)
        self.assertIn('Self.quoted(name + "_time_idx")) ON \\(quotedName) (time)', swift)
        self.assertIn("CREATE INDEX t_time_idx ON t (time);", forward.table_sql("t"))

    def test_the_insert_is_the_sinks_statement(self):
        swift = swift_source(TABLE_SWIFT)
        column_list = re.search(r'INSERT INTO \\\(quotedName\) \(([^)]*)\) VALUES', swift).group(1)
        self.assertEqual(", ".join(forward.COLUMNS), column_list)
        self.assertIn('" ON CONFLICT (id) DO NOTHING"', swift)
        statement = forward.insert_sql("t", [ROW, ROW])
        self.assertTrue(statement.startswith("INSERT INTO t (%s) VALUES (" % column_list))
        self.assertTrue(statement.endswith(") ON CONFLICT (id) DO NOTHING;\n"))
        self.assertEqual(statement.count("::jsonb)"), 2)
        self.assertEqual(forward.BATCH, int(re.search(r"batchLimit: Int = (\d+)", swift_source(
            os.path.join(ROOT, "Sources/Features/Forward/Service/Postgres/PostgresSink.swift"))).group(1)))

    def test_literals(self):
        self.assertEqual(forward.sql_literal(None), "NULL")
        self.assertEqual(forward.sql_literal(42), "42")
        self.assertEqual(forward.sql_literal("it's"), "'it''s'")
        self.assertEqual(forward.sql_literal('a\\"b'), "'a\\\"b'")  # backslashes stay as they are


class EnvelopeTests(unittest.TestCase):
    def test_the_body_is_forward_envelopes(self):
        body = forward.envelope(ROW)
        # ForwardEnvelope writes data, id, source, timestamp, type in that order, compact.
        swift = swift_source(ENVELOPE_SWIFT)
        order = re.findall(r'buffer\.writeString\(#"[{,]"(\w+)":"#\)', swift)
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
