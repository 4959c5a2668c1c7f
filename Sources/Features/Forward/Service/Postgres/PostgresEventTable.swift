import Foundation
import PassTapCore
import NIOCore
import PostgresNIO

/// The SQL of one `[[forward.postgres]]` table: its schema, the check that it exists, and the
/// batch insert. The table name is a plain identifier (the loader checks it) and is quoted
/// anyway; every value goes in as a bind parameter, never into the SQL text.
struct PostgresEventTable: Sendable, Hashable {
    /// The table name as configured.
    let name: String

    /// `name` as a quoted identifier (`"passtap_events"`), any `"` doubled.
    var quotedName: String { Self.quoted(name) }

    /// The query that finds whether the table exists (in the connection's `search_path`, where
    /// `CREATE TABLE` puts it): one boolean. Run before creating, so a role with only `INSERT` on
    /// an existing table never needs `CREATE` on the schema.
    var existsQuery: PostgresQuery {
        var binds = PostgresBindings(capacity: 1)
        binds.append(quotedName)
        return PostgresQuery(unsafeSQL: "SELECT to_regclass($1) IS NOT NULL", binds: binds)
    }

    /// The documented schema (`docs/fleet.md`): one row per event, `id` (`instance:seq`) its key.
    var createTable: String {
        """
        CREATE TABLE IF NOT EXISTS \(quotedName) (\
        id text PRIMARY KEY, \
        source text NOT NULL, \
        seq bigint NOT NULL, \
        instance text NOT NULL, \
        kind text NOT NULL, \
        reader text, \
        time timestamptz NOT NULL, \
        event jsonb NOT NULL)
        """
    }

    /// The index the fleet's queries by time range need (`docs/fleet.md`, "Example queries").
    var createTimeIndex: String {
        "CREATE INDEX IF NOT EXISTS \(Self.quoted(name + "_time_idx")) ON \(quotedName) (time)"
    }

    /// One `INSERT` of the whole batch, eight parameters a row, an `id` already there skipped.
    func insert(_ batch: [OutboxItem]) -> PostgresQuery {
        var binds = PostgresBindings(capacity: batch.count * Self.columnsPerRow)
        for item in batch {
            binds.append(item.id)
            binds.append(item.source)
            binds.append(Int64(clamping: item.seq))
            binds.append(item.instance)
            binds.append(item.kind.rawValue)
            binds.append(item.reader)
            binds.append(item.time)
            binds.append(PostgresJSONB(json: item.event))
        }
        return PostgresQuery(unsafeSQL: insertSQL(rows: batch.count), binds: binds)
    }

    /// The text of ``insert(_:)`` for `rows` rows: `($1, ..., $8), ($9, ...)`.
    func insertSQL(rows: Int) -> String {
        let values = (0..<rows).map { row in
            "(" + (1...Self.columnsPerRow).map { "$\(row * Self.columnsPerRow + $0)" }.joined(separator: ", ") + ")"
        }
        return "INSERT INTO \(quotedName) (id, source, seq, instance, kind, reader, time, event) VALUES "
            + values.joined(separator: ", ") + " ON CONFLICT (id) DO NOTHING"
    }

    /// Parameters of one row in ``insert(_:)``.
    static let columnsPerRow = 8

    /// `identifier` in double quotes, an embedded `"` doubled (SQL's quoted identifier).
    static func quoted(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
