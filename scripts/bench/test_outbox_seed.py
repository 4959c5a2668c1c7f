#!/usr/bin/env python3
"""scripts/bench/outbox_seed.py writes what docs/architecture.md, "The outbox" describes: schema
version 1, the events pending for the sink in rowid order, totals.bytes kept, mode 0600; it
refuses a file of another version. The file and its tables are made by the built passtapd
(.build/debug/passtapd, as scripts/test builds it): the tests skip without one.

Run: python3 -m unittest scripts/bench/test_outbox_seed.py (scripts/test does).
"""

import json
import os
import sqlite3
import stat
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import outbox_seed  # noqa: E402


class OutboxSeedTests(unittest.TestCase):
    def setUp(self):
        if not os.access(outbox_seed.DEFAULT_PASSTAPD, os.X_OK):
            self.skipTest("no %s: run `swift build` first" % outbox_seed.DEFAULT_PASSTAPD)
        self.folder = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.folder.name, "outbox.sqlite")

    def tearDown(self):
        self.folder.cleanup()

    def test_seeded_rows_follow_the_schema(self):
        summary = outbox_seed.seed(self.path, "drain", 1000, instance="BENCH")
        self.assertEqual(summary["count"], 1000)
        self.assertEqual(stat.S_IMODE(os.stat(self.path).st_mode), 0o600)
        db = sqlite3.connect(self.path)
        self.assertEqual(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0], "1")
        self.assertEqual(db.execute("PRAGMA journal_mode").fetchone()[0], "wal")
        cursor, kinds, removed = db.execute("SELECT cursor, kinds, removed_at FROM sinks WHERE name = 'drain'").fetchone()
        self.assertEqual((cursor, kinds, removed), (0, ",read.result,", None))
        # The sink's pending events, as the outbox selects them.
        rows = db.execute("SELECT rowid, instance, seq, kind, event, full_event, bytes FROM events "
                          "WHERE rowid > ? AND instr(?, ',' || kind || ',') > 0 ORDER BY rowid", (cursor, kinds)).fetchall()
        self.assertEqual(len(rows), 1000)
        self.assertEqual([f"{r[1]}:{r[2]}" for r in rows[:2]], ["BENCH:1", "BENCH:2"])
        self.assertEqual([r[0] for r in rows], list(range(1, 1001)))
        for _, _, seq, kind, event, full_event, size in rows[:5]:
            decoded = json.loads(event)
            self.assertEqual((decoded["seq"], decoded["kind"]), (seq, kind))
            self.assertIsNone(full_event)
            self.assertEqual(size, len(event))
        total = db.execute("SELECT SUM(bytes) FROM events").fetchone()[0]
        self.assertEqual(db.execute("SELECT bytes FROM totals").fetchone()[0], total)
        db.close()

    def test_a_second_seed_appends_and_a_new_sink_starts_after_the_stored_rows(self):
        outbox_seed.seed(self.path, "drain", 10)
        second = outbox_seed.seed(self.path, "late", 5)
        self.assertEqual((second["first_rowid"], second["last_rowid"]), (11, 15))
        db = sqlite3.connect(self.path)
        cursors = dict(db.execute("SELECT name, cursor FROM sinks").fetchall())
        self.assertEqual(cursors, {"drain": 0, "late": 10})
        db.close()

    def test_the_tables_are_the_ones_passtapd_makes(self):
        # The script writes rows only: without a passtapd to make the file there is no outbox.
        with self.assertRaisesRegex(outbox_seed.SeedError, "no passtapd to make one"):
            outbox_seed.seed(self.path, "drain", 1, passtapd=os.path.join(self.folder.name, "none"))
        self.assertFalse(os.path.exists(self.path))
        outbox_seed.seed(self.path, "drain", 1)
        db = sqlite3.connect(self.path)
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")}
        db.close()
        self.assertLessEqual({"meta", "events", "sinks", "dead", "totals", "events_added", "events_deleted"}, tables)

    def test_another_schema_version_is_refused(self):
        outbox_seed.seed(self.path, "drain", 1)
        db = sqlite3.connect(self.path)
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        db.commit()
        db.close()
        with self.assertRaisesRegex(outbox_seed.SeedError, "schema version 2"):
            outbox_seed.seed(self.path, "drain", 1)


if __name__ == "__main__":
    unittest.main()
