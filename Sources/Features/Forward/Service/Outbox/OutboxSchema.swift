import SQLiteNIO

/// The outbox's tables (`docs/architecture.md`, "The outbox" describes them for anyone seeding a
/// file, such as `scripts/bench/outbox_seed.py`).
enum OutboxSchema {
    /// The version this passtapd writes, in `meta` under `schema_version`.
    static let version = 1

    /// Every statement that makes the schema; each is harmless on a file that has it.
    static let statements = [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        // rowid: the outbox order; AUTOINCREMENT so a row id is never used twice (sinks' cursors rely on it).
        """
        CREATE TABLE IF NOT EXISTS events (
            rowid INTEGER PRIMARY KEY AUTOINCREMENT,
            instance TEXT NOT NULL,
            seq INTEGER NOT NULL,
            source TEXT NOT NULL,
            kind TEXT NOT NULL,
            reader TEXT,
            time INTEGER NOT NULL,
            event BLOB NOT NULL,
            full_event BLOB,
            bytes INTEGER NOT NULL
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS sinks (
            name TEXT PRIMARY KEY,
            type TEXT NOT NULL,
            kinds TEXT NOT NULL,
            cursor INTEGER NOT NULL,
            removed_at INTEGER,
            until_row INTEGER,
            position INTEGER NOT NULL DEFAULT 0
        )
        """,
        """
        CREATE TABLE IF NOT EXISTS dead (
            sink TEXT NOT NULL,
            rowid INTEGER NOT NULL,
            error TEXT NOT NULL,
            requeued INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (sink, rowid)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS dead_by_rowid ON dead (rowid)",
        // The stored bytes `max_pending_bytes` counts, kept by triggers (so a seeded file keeps it too).
        "CREATE TABLE IF NOT EXISTS totals (id INTEGER PRIMARY KEY CHECK (id = 1), bytes INTEGER NOT NULL)",
        "INSERT OR IGNORE INTO totals (id, bytes) VALUES (1, 0)",
        "CREATE TRIGGER IF NOT EXISTS events_added AFTER INSERT ON events BEGIN UPDATE totals SET bytes = bytes + NEW.bytes WHERE id = 1; END",
        "CREATE TRIGGER IF NOT EXISTS events_deleted AFTER DELETE ON events BEGIN UPDATE totals SET bytes = bytes - OLD.bytes WHERE id = 1; END",
    ]

    /// Makes the tables of a new file, or checks the version of an existing one.
    static func prepare(_ session: OutboxSession) async throws {
        let existing = try await session.integer("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'")
        if existing == 1 {
            let text = try await session.query("SELECT value FROM meta WHERE key = 'schema_version'").first?.column("value")?.string
            guard let text, let found = Int(text) else {
                throw OutboxFailure("it has no schema_version: it is not a passtapd outbox; move it aside, passtapd makes a new one")
            }
            guard found <= version else {
                throw OutboxFailure("its schema version \(found) is newer than this passtapd's (\(version)); run the newer passtapd or move the file aside")
            }
        }
        for statement in statements {
            try await session.execute(statement)
        }
        try await session.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", [.text(String(version))])
    }

    /// `kinds` as the `sinks.kinds` column holds them: each name between commas (`,read.result,`),
    /// for `instr(kinds, ',' || kind || ',')`.
    static func kindsText<Kinds: Sequence<String>>(_ kinds: Kinds) -> String {
        "," + kinds.sorted().joined(separator: ",") + ","
    }
}
