import NIOCore
import Testing

@testable import PassTapForward

/// The SQL text and the jsonb bytes the PostgreSQL sink sends (the rows themselves are checked
/// against a real server in `IntegrationTests/PostgresSinkTests`).
struct PostgresEventTableTests {
    @Test func theInsertHasEightParametersARowAndSkipsKnownIDs() {
        let table = PostgresEventTable(name: "passtap_events")
        #expect(table.insertSQL(rows: 2) == """
            INSERT INTO "passtap_events" (id, source, seq, instance, kind, reader, time, event) VALUES \
            ($1, $2, $3, $4, $5, $6, $7, $8), ($9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT (id) DO NOTHING
            """)
    }

    @Test func identifiersAreQuoted() {
        #expect(PostgresEventTable(name: "Taps").quotedName == #""Taps""#)
        #expect(PostgresEventTable.quoted(#"a"b"#) == #""a""b""#)
        #expect(PostgresEventTable(name: "taps").createTimeIndex == #"CREATE INDEX IF NOT EXISTS "taps_time_idx" ON "taps" (time)"#)
    }

    private func jsonb(_ json: String) -> String {
        var out = ByteBuffer()
        PostgresJSONB.writeReplacingNulEscapes(ByteBuffer(string: json), to: &out)
        return String(buffer: out)
    }

    @Test func aNulEscapeBecomesTheReplacementCharacter() {
        #expect(jsonb(#"{"message":"a\u0000b"}"#) == #"{"message":"a\ufffdb"}"#)
        #expect(jsonb(#"{"m":"\u0000\u0000"}"#) == #"{"m":"\ufffd\ufffd"}"#)
    }

    @Test func everythingElseIsLeftAsItIs() {
        for json in [
            #"{"kind":"read.result","n":1.5}"#, #"{"m":"\\u0000"}"#, #"{"m":"\u00e9\n\"\\"}"#, #"{"m":"\u0001"}"#, #"{"m":"end\\"}"#,
            #"{"m":"\u000"}"#,
        ] {
            #expect(jsonb(json) == json)
        }
    }
}
