import PassTapCore
import Synchronization
import PassTapProtocol

/// `vas.read`: waits for the next tap on a reader and answers its VAS result.
struct VASReadHandler: MethodHandler {
    static let method = RPCMethod.vasRead
    static let role = AccessRole.read
    /// The configured pass type ids now; `nil` when `[vas]` is disabled (a reload may change it).
    let merchants: @Sendable () -> [String]?
    let vasReads: VASReadQueue
    /// `[socket] vas_reads_per_uid`, counted per user and reader.
    let pending: PendingVASReads
    let knows: @Sendable (ReaderID) -> Bool

    /// A handler whose merchants are `merchants()` at each request.
    init(
        merchants: @escaping @Sendable () -> [String]?, vasReads: VASReadQueue, pending: PendingVASReads,
        knows: @escaping @Sendable (ReaderID) -> Bool
    ) {
        self.merchants = merchants
        self.vasReads = vasReads
        self.pending = pending
        self.knows = knows
    }

    /// A handler whose merchants never change.
    init(merchants: [String]?, vasReads: VASReadQueue, pending: PendingVASReads, knows: @escaping @Sendable (ReaderID) -> Bool) {
        self.init(merchants: { merchants }, vasReads: vasReads, pending: pending, knows: knows)
    }

    static let isAudited = true
    static func auditedReader(of params: VASReadParams) -> ReaderID? { params.reader }

    func handle(_ params: VASReadParams, context: RequestContext) async -> MethodReply<VASReadResult> {
        let method = Self.method.rawValue
        guard let configured = merchants() else {
            return .failure(JSONRPCError(.vasDisabled, "Apple VAS is disabled: set [vas] enabled = true and configure [[vas.merchants]] in passtapd.toml"))
        }
        guard VASReadParams.timeoutRange.contains(params.timeoutMilliseconds) else {
            return .failure(.invalidParams(method: method, "timeout_ms must be from \(VASReadParams.timeoutRange.lowerBound) to \(VASReadParams.timeoutRange.upperBound)"))
        }
        if let asked = params.merchants {
            guard !asked.isEmpty else {
                return .failure(.invalidParams(method: method, "merchants is empty: leave it out to ask every configured merchant"))
            }
            if let unknown = asked.first(where: { !configured.contains($0) }) {
                return .failure(.invalidParams(method: method, "merchants: \(unknown) is not configured; configured: \(configured.joined(separator: ", "))"))
            }
        }
        guard knows(params.reader) else {
            return .failure(ReaderCommandError.unknownReader(params.reader).jsonRPCError)
        }
        let uid = context.peer.uid
        guard pending.begin(uid: uid, reader: params.reader) else {
            return .failure(
                JSONRPCError(
                    .busy,
                    "user \(uid) already has \(pending.limit) vas.read waiting on \(params.reader) ([socket] vas_reads_per_uid): wait for its answer, or cancel it by closing its connection"
                ))
        }
        defer { pending.end(uid: uid, reader: params.reader) }
        do {
            let result = try await vasReads.nextTap(
                on: params.reader, merchants: params.merchants.map(Set.init), timeout: .milliseconds(params.timeoutMilliseconds))
            return .result(VASReadResult(reader: params.reader, result: result))
        } catch .timeout {
            return .failure(JSONRPCError(.timeout, "no card arrived on \(params.reader) within \(params.timeoutMilliseconds) ms: tap again, or raise timeout_ms"))
        } catch {
            return .failure(JSONRPCError(.shuttingDown, "the vas.read was cancelled (the daemon is stopping)"))
        }
    }
}

/// The `vas.read`s waiting, per user and reader, against `[socket] vas_reads_per_uid`: one user
/// cannot queue itself ahead of the till on every tap.
final class PendingVASReads: Sendable {
    /// The most `vas.read`s one user may have waiting on one reader (a reload may change it;
    /// reads already waiting stay).
    var limit: Int { currentLimit() }
    private let currentLimit: @Sendable () -> Int
    private let counts = Mutex([Key: Int]())

    private struct Key: Hashable {
        var uid: UInt32
        var reader: ReaderID
    }

    init(limit: Int) { currentLimit = { limit } }

    /// Counts against `limit()` as it is at each new `vas.read`.
    init(limit: @escaping @Sendable () -> Int) { currentLimit = limit }

    /// Counts a new `vas.read`; `false` (and nothing counted) when the user is at the limit.
    func begin(uid: UInt32, reader: ReaderID) -> Bool {
        counts.withLock { counts in
            let key = Key(uid: uid, reader: reader)
            guard counts[key, default: 0] < self.limit else { return false }
            counts[key, default: 0] += 1
            return true
        }
    }

    /// Ends one counted by ``begin(uid:reader:)``.
    func end(uid: UInt32, reader: ReaderID) {
        counts.withLock { counts in
            let key = Key(uid: uid, reader: reader)
            let left = counts[key, default: 1] - 1
            counts[key] = left > 0 ? left : nil
        }
    }
}
