#!/usr/bin/env python3
"""Seeds an outbox file with N pending read.result events for one sink, for the drain bench
(docs/performance.md): taps are too slow to make 10 000 events.

Follows the outbox schema of docs/architecture.md, "The outbox" (version 1): makes the file and
its tables when missing (mode 0600, write-ahead log, as passtapd does), refuses a file of another
schema version, adds the sink when it is new (a webhook or postgres sink taking read.result,
starting after the events already stored, as passtapd starts a new sink), then appends the events
in one transaction. Each event is a read.result as the socket shows it (keys sorted, compact, no
pass message), with id INSTANCE:SEQ for SEQ 1..N. Stop passtapd before seeding its outbox.

Usage: scripts/bench/outbox_seed.py PATH --sink NAME [--count 10000] [--type webhook|postgres]
                                    [--instance ID] [--source NAME]
Prints one JSON line: {"path", "sink", "count", "first_rowid", "last_rowid", "seconds"}.
"""

import argparse
import datetime
import json
import os
import sqlite3
import sys
import time
import uuid

SCHEMA_VERSION = 1

# docs/architecture.md, "The outbox": the same tables and triggers passtapd makes.
SCHEMA = [
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS events (
        rowid INTEGER PRIMARY KEY AUTOINCREMENT, instance TEXT NOT NULL, seq INTEGER NOT NULL,
        source TEXT NOT NULL, kind TEXT NOT NULL, reader TEXT, time INTEGER NOT NULL,
        event BLOB NOT NULL, full_event BLOB, bytes INTEGER NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS sinks (
        name TEXT PRIMARY KEY, type TEXT NOT NULL, kinds TEXT NOT NULL, cursor INTEGER NOT NULL,
        removed_at INTEGER, until_row INTEGER, position INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE IF NOT EXISTS dead (
        sink TEXT NOT NULL, rowid INTEGER NOT NULL, error TEXT NOT NULL,
        requeued INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (sink, rowid)) WITHOUT ROWID""",
    "CREATE INDEX IF NOT EXISTS dead_by_rowid ON dead (rowid)",
    "CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL)",
    "INSERT OR IGNORE INTO totals (id, bytes) VALUES (1, 0)",
    "CREATE TRIGGER IF NOT EXISTS events_added AFTER INSERT ON events BEGIN "
    "UPDATE totals SET bytes = bytes + NEW.bytes WHERE id = 1; END",
    "CREATE TRIGGER IF NOT EXISTS events_deleted AFTER DELETE ON events BEGIN "
    "UPDATE totals SET bytes = bytes - OLD.bytes WHERE id = 1; END",
]

READER = "pcsc:Virtual PCD 00 00"


class SeedError(Exception):
    """A file this script will not seed, with what to do."""


def event_json(seq, when):
    """A read.result event object as the socket encodes it (compact, keys sorted)."""
    event = {
        "seq": seq, "time": when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z",
        "kind": "read.result", "reader": READER, "atr": "3B8680014B4F4E41141109", "uid": "04A23C1A7F2D80",
        "uid_note": None, "atqa": None, "sak": None, "ats": None, "target": "iso_dep",
        "aid": {"selected": "A0000000041010", "fci": None, "fci_omitted": None,
                "attempts": [{"aid": "A0000000041010", "sw": "9000"}], "ppse": None},
        "vas": None, "error": None, "duration_ms": 38.412,
    }
    return json.dumps(event, separators=(",", ":"), sort_keys=True).encode()


def open_outbox(path):
    """Opens (or makes, 0600) the outbox at `path` with its schema; refuses another version."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise SeedError(f"the folder {folder} does not exist; create it first")
    if not os.path.exists(path):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    db = sqlite3.connect(path, isolation_level=None)
    mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if mode.lower() != "wal":
        raise SeedError(f"{path}: SQLite refused the write-ahead log (journal_mode {mode})")
    has_meta = db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()[0]
    if has_meta:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise SeedError(f"{path} has schema version {row and row[0]}, this script writes {SCHEMA_VERSION}; "
                            "use a new file")
    db.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA:
        db.execute(statement)
    db.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    db.execute("COMMIT")
    return db


def seed(path, sink, count, sink_type="webhook", instance=None, source="bench-till"):
    """Appends `count` read.result events pending for `sink`; returns the JSON summary's dict."""
    if sink_type not in ("webhook", "postgres"):
        raise SeedError(f"--type must be webhook or postgres, not {sink_type}")
    instance = instance or uuid.uuid4().hex.upper()
    started = time.monotonic()
    db = open_outbox(path)
    try:
        db.execute("BEGIN IMMEDIATE")
        newest = db.execute("SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'events'), 0)").fetchone()[0]
        db.execute("INSERT OR IGNORE INTO sinks (name, type, kinds, cursor, removed_at, position) "
                   "VALUES (?, ?, ',read.result,', ?, NULL, 0)", (sink, sink_type, newest))
        now = datetime.datetime.now(datetime.timezone.utc)
        millis = int(now.timestamp() * 1000)
        rows = []
        for seq in range(1, count + 1):
            body = event_json(seq, now)
            rows.append((instance, seq, source, "read.result", READER, millis, body, None, len(body)))
        db.executemany("INSERT INTO events (instance, seq, source, kind, reader, time, event, full_event, bytes) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        last = db.execute("SELECT seq FROM sqlite_sequence WHERE name = 'events'").fetchone()[0]
        db.execute("COMMIT")
    finally:
        db.close()
    return {"path": path, "sink": sink, "count": count, "first_rowid": newest + 1 if count else None,
            "last_rowid": last if count else None, "seconds": round(time.monotonic() - started, 3)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path")
    parser.add_argument("--sink", required=True)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--type", default="webhook", choices=["webhook", "postgres"])
    parser.add_argument("--instance")
    parser.add_argument("--source", default="bench-till")
    args = parser.parse_args(argv)
    try:
        summary = seed(args.path, args.sink, args.count, args.type, args.instance, args.source)
    except (SeedError, sqlite3.Error) as error:
        print(f"outbox_seed: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
