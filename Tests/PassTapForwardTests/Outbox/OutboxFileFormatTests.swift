import ForwardSettings
import Foundation
import PassTapCore
import SQLiteNIO
import Testing

@testable import PassTapForward

/// The file as others see it: the pragmas `[forward] sync` sets, and a file seeded by
/// scripts/bench/outbox_seed.py (from the documented schema) read by the outbox.
@Suite struct OutboxFileFormatTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `PRAGMA name` on the outbox's own connection.
    static func pragma(_ outbox: Outbox, _ name: String) async throws -> String? {
        try await outbox.database.run("read \(name)", transaction: false) { session in
            try await session.query("PRAGMA \(name)").first?.columns.first?.data.string
        }
    }

    @Test(arguments: [(Configuration.ForwardSync.normal, "1"), (.full, "2")])
    func syncSetsSynchronousInWriteAheadLogMode(sync: Configuration.ForwardSync, synchronous: String) async throws {
        let fixture = try OutboxFixture()
        let outbox = try await Outbox.open(path: fixture.path, sync: sync, logger: OutboxFixture.logger)
        #expect(try await Self.pragma(outbox, "journal_mode") == "wal")
        #expect(try await Self.pragma(outbox, "synchronous") == synchronous)
        await outbox.close()
    }

    @Test func aFileSeededFromTheDocumentedSchemaIsReadAsPendingEvents() async throws {
        let fixture = try OutboxFixture()
        let seeder = Process()
        seeder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        seeder.arguments = [
            "python3", Self.repository.appendingPathComponent("scripts/bench/outbox_seed.py").path, fixture.path,
            "--sink", "drain", "--count", "250", "--instance", "SEEDED", "--source", "bench-till",
        ]
        seeder.standardOutput = FileHandle.nullDevice
        try seeder.run()
        seeder.waitUntilExit()
        #expect(seeder.terminationStatus == 0)
        let outbox = try await fixture.open()
        let sink = OutboxFixture.sink("drain", kinds: [.readResult])
        try await outbox.setSinks([sink], now: OutboxFixture.time)
        let status = try await outbox.status()
        #expect(status.sinks.map(\.pending) == [250])
        let batch = try await outbox.nextBatch(for: "drain", kinds: [.readResult], limit: 300, includeMessage: false)
        #expect(batch.count == 250)
        #expect(batch.first?.id == "SEEDED:1" && batch.last?.id == "SEEDED:250")
        #expect(batch.allSatisfy { $0.source == "bench-till" && $0.kind == .readResult })
        #expect(status.pendingBytes == batch.map(\.event.readableBytes).reduce(0, +))
        try await outbox.markDelivered(sink: "drain", rowIDs: batch.map(\.rowID))
        #expect(try await outbox.status().pendingBytes == 0)
        await outbox.close()
    }
}
