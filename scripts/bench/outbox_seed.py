#!/usr/bin/env python3
"""Seeds an outbox file with N pending read.result events for one sink, for the drain bench
(docs/performance.md): taps are too slow to make 10 000 events.

The schema is passtapd's own: when the file is missing, the given passtapd makes it (started for
a moment with [forward] and a stand-in webhook sink, readers off, its socket in a folder of its
own; the stand-in's row is then deleted), so this script writes rows only, never tables. It
refuses a file of another schema version than the rows it writes (docs/architecture.md, "The
outbox": version 1), adds the sink when it is new (a webhook or postgres sink taking read.result,
starting after the events already stored, as passtapd starts a new sink), then appends the events
in one transaction. Each event is a read.result as the socket shows it (keys sorted, compact, no
pass message), with id INSTANCE:SEQ for SEQ 1..N. Stop passtapd before seeding its outbox.

Usage: scripts/bench/outbox_seed.py PATH --sink NAME [--count 10000] [--type webhook|postgres]
                                    [--instance ID] [--source NAME] [--passtapd PATH]
  --passtapd  the passtapd that makes a missing outbox (default: .build/debug/passtapd)
Prints one JSON line: {"path", "sink", "count", "first_rowid", "last_rowid", "seconds"}.
"""

import argparse
import datetime
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import passtaprig  # noqa: E402
from passtaprig.vcard import stop_process  # noqa: E402
from passtaprig.waits import Failure, wait_for  # noqa: E402

# The schema version of the rows this script writes (docs/architecture.md, "The outbox").
SCHEMA_VERSION = 1
DEFAULT_PASSTAPD = os.path.join(passtaprig.ROOT, ".build/debug/passtapd")
# The stand-in sink passtapd needs to make an outbox at all; its row is deleted after.
PROBE_SINK = "outbox-seed-probe"
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


def schema_version(db):
    """The outbox's schema version (meta), or None when the file has no outbox tables yet."""
    if not db.execute("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone()[0]:
        return None
    row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    return row and row[0]


def make_outbox(path, passtapd):
    """Lets `passtapd` make the outbox at `path` (mode 0600, its tables and write-ahead log): it
    runs with a config of a temporary folder until the file has its schema, then stops. The
    stand-in sink's row goes again, so that the file holds no sink yet."""
    if not os.access(passtapd, os.X_OK):
        raise SeedError(f"no outbox at {path}, and {passtapd} is no passtapd to make one; build it "
                        "(swift build --product passtapd) or name one with --passtapd")
    work = tempfile.mkdtemp(prefix="passtap-outbox-seed-")
    try:
        secret = os.path.join(work, "probe.secret")
        with open(os.open(secret, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write("whsec_" + "A" * 32 + "\n")
        config = os.path.join(work, "passtapd.toml")
        with open(config, "w") as f:
            f.write(f"""[socket]
path = "{os.path.join(work, 'passtapd.sock')}"
[log]
level = "warning"
[pcsc]
enabled = false
[forward]
outbox = "{os.path.abspath(path)}"
[[forward.webhooks]]
name = "{PROBE_SINK}"
url = "https://127.0.0.1:9/"
secret_file = "{secret}"
kinds = ["read.result"]
""")
        log_path = os.path.join(work, "passtapd.log")
        with open(log_path, "w") as log:
            daemon = subprocess.Popen([passtapd, "--config", config], stdout=log, stderr=log)

        def made():
            if daemon.poll() is not None:
                with open(log_path) as f:
                    raise SeedError(f"{passtapd} exited ({daemon.returncode}) making the outbox: {f.read()[-1000:]}")
            if not os.path.exists(path):
                return False
            db = sqlite3.connect(path)
            try:
                return schema_version(db) is not None and db.execute(
                    "SELECT COUNT(*) FROM sinks WHERE name = ?", (PROBE_SINK,)).fetchone()[0] == 1
            except sqlite3.OperationalError:  # passtapd is still making it
                return False
            finally:
                db.close()

        try:
            wait_for(made, f"{passtapd} to make the outbox {path}", timeout=30, interval=0.01)
        except Failure as error:
            raise SeedError(str(error)) from None
        finally:
            stop_process(daemon)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("DELETE FROM sinks WHERE name = ?", (PROBE_SINK,))
    finally:
        db.close()


def open_outbox(path, passtapd=DEFAULT_PASSTAPD):
    """Opens the outbox at `path`, made by `passtapd` when missing; refuses another version."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise SeedError(f"the folder {folder} does not exist; create it first")
    if not os.path.exists(path):
        make_outbox(path, passtapd)
    db = sqlite3.connect(path, isolation_level=None)
    version = schema_version(db)
    if version != str(SCHEMA_VERSION):
        db.close()
        raise SeedError(f"{path} has schema version {version}, this script writes {SCHEMA_VERSION}; "
                        "use a new file")
    return db


def seed(path, sink, count, sink_type="webhook", instance=None, source="bench-till", passtapd=DEFAULT_PASSTAPD):
    """Appends `count` read.result events pending for `sink` (the outbox made by `passtapd` when
    missing); returns the JSON summary's dict."""
    if sink_type not in ("webhook", "postgres"):
        raise SeedError(f"--type must be webhook or postgres, not {sink_type}")
    instance = instance or uuid.uuid4().hex.upper()
    started = time.monotonic()
    db = open_outbox(path, passtapd)
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
    parser.add_argument("--passtapd", default=DEFAULT_PASSTAPD)
    args = parser.parse_args(argv)
    try:
        summary = seed(args.path, args.sink, args.count, args.type, args.instance, args.source, args.passtapd)
    except (SeedError, sqlite3.Error) as error:
        print(f"outbox_seed: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
