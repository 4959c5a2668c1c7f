import ForwardSettings
import Foundation
import Logging
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import Synchronization
import ISO7816
import VAS

@testable import PassTapForward
import Wallets

/// A real outbox file in a temporary folder of its own, a hub whose recorder is a real
/// ``OutboxWriter``, and what the writer reported. Each test makes its own.
final class OutboxFixture: Sendable {
    let folder: URL
    let path: String
    let live: LiveConfiguration
    let commits: AsyncStream<Void>
    private let commitSink: AsyncStream<Void>.Continuation
    private let announced = Mutex<[ForwardDropped]>([])

    static let logger = Logger(label: "test.outbox")
    static let time = Date(timeIntervalSince1970: 1_800_000_000)
    static let reader = ReaderID.pcsc("Test Reader 00 00")

    /// A folder with no outbox yet, and `[forward]` with `sinks` (webhooks named as given).
    init(sinks: [Configuration.ForwardSinkSettings] = [OutboxFixture.sink("a")], maxPendingBytes: Int = 64 << 20) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent("outbox.sqlite").path
        var configuration = Configuration()
        configuration.forward = Self.forward(sinks, maxPendingBytes: maxPendingBytes)
        live = LiveConfiguration(configuration)
        (commits, commitSink) = AsyncStream.makeStream(of: Void.self)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }

    /// A sink's settings (a webhook unless said otherwise).
    static func sink(_ name: String, kinds: Set<EventKind> = [.readResult, .cardInserted], includeMessage: Bool = false) -> Configuration.ForwardSinkSettings {
        .init(name: name, type: .webhook, kinds: kinds, includeMessage: includeMessage)
    }

    /// `[forward]` with these sinks as webhooks (the writer reads only kinds and include_message).
    static func forward(_ sinks: [Configuration.ForwardSinkSettings], maxPendingBytes: Int) -> Configuration.Forward {
        var forward = Configuration.Forward()
        forward.maxPendingBytes = maxPendingBytes
        forward.source = "till-test"
        forward.webhooks = sinks.map {
            Configuration.ForwardWebhook(
                name: $0.name, url: URL(string: "https://example.com/hook")!, secretFile: "/dev/null",
                secret: WebhookSecret(key: Array(repeating: 7, count: 32)), kinds: $0.kinds, includeMessage: $0.includeMessage)
        }
        return forward
    }

    /// Changes `[forward]`'s sinks and size as a reload would.
    func reconfigure(_ sinks: [Configuration.ForwardSinkSettings], maxPendingBytes: Int = 64 << 20) {
        var configuration = live.current
        configuration.forward = Self.forward(sinks, maxPendingBytes: maxPendingBytes)
        live.replace(with: configuration)
    }

    func open(path: String? = nil) async throws -> Outbox {
        try await Outbox.open(path: path ?? self.path, sync: .normal, logger: Self.logger)
    }

    /// A writer for `instance` whose commits and announcements this fixture records;
    /// `onCommit` runs too (on the writer's thread).
    func writer(instance: String, limits: OutboxWriter.Limits = .standard, onCommit: @escaping @Sendable () -> Void = {}) -> OutboxWriter {
        OutboxWriter(
            instance: instance, live: live, logger: Self.logger, limits: limits,
            onCommit: { [commitSink] in
                onCommit()
                commitSink.yield()
            },
            announce: { [self] dropped in self.announced.withLock { $0.append(dropped) } })
    }

    /// Everything announced so far.
    var drops: [ForwardDropped] { announced.withLock { $0 } }

    /// A hub recording into `writer`, with its clock pinned (so events of a kind have one size).
    func hub(_ writer: OutboxWriter) -> EventHub {
        EventHub(lineEncoder: EventNotificationEncoder(), clock: DaemonClock(date: { OutboxFixture.time }), observers: [writer])
    }

    /// Waits (with a deadline) for the writer's next commit.
    func nextCommit() async throws {
        let commits = self.commits
        try await withDeadline("an outbox commit") {
            for await _ in commits { return }
            throw CancellationError()
        }
    }

    /// The bytes of every file in the folder (the outbox, its -wal and -shm).
    func filesBytes() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            files[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return files
    }

    /// A `card.inserted` payload.
    static let card = EventPayload.card(CardInfo(atr: "3B80800101", uid: "04A1B2C3D4E5F6"))

    /// The decrypted pass message of ``readResultWithPass``.
    static let message = "member 0042 secret"

    /// A `read.result` payload with a decrypted pass (``message``).
    static func readResultWithPass() -> EventPayload {
        var coffee = VASEntry(passTypeID: "pass.com.example.coffee", status: .success, sw: "9000", keyID: VASKeyID(bytes: [1, 2, 3, 4]))
        coffee.publish(VASPayload(timestampRaw: 817_038_360, message: Array(message.utf8)), variant: .a)
        let vas = VASSessionResult(
            offered: true, wallet: "ApplePay", version: "0100", capabilities: nil, mode: .vasOrPayment, problem: nil, entries: [coffee])
        return .readResult(ReadResult(card: CardInfo(atr: "3B80800101", uid: "04A1B2C3D4E5F6"), target: .isoDep, session: SessionOutcome(vas: vas)))
    }
}

extension Data {
    /// Whether `text`'s UTF-8 bytes occur in it.
    func contains(text: String) -> Bool {
        range(of: Data(text.utf8)) != nil
    }
}
