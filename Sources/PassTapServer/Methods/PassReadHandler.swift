import PassTapCore
import Synchronization
import PassTapProtocol

/// The name a wallet read is called by: `pass.read`, or `vas.read`, its name before 0.3.0. Both
/// are ``PassReadHandler``s with the same params, result, role and limits.
protocol WalletReadName: Sendable {
    /// The method's name on the wire.
    static var method: RPCMethod { get }
}

/// `pass.read`.
enum PassReadName: WalletReadName {
    static var method: RPCMethod { .passRead }
}

/// `vas.read`, kept for the clients written before `pass.read`.
enum VASReadName: WalletReadName {
    static var method: RPCMethod { .vasRead }
}

/// `pass.read` (and `vas.read`): waits for the next tap on a reader and answers its wallet result
/// (VAS for an iPhone, Smart Tap for an Android phone).
typealias PassReadHandler = WalletReadHandler<PassReadName>
/// `vas.read`, the old name of `pass.read`.
typealias VASReadHandler = WalletReadHandler<VASReadName>

/// A wallet read under the name `Name`: waits for the next tap on a reader and answers its wallet
/// result. Its errors name the method as it was called.
struct WalletReadHandler<Name: WalletReadName>: MethodHandler {
    static var method: RPCMethod { Name.method }
    static var role: AccessRole { .read }
    /// The configured pass type ids now (none when only `[smarttap]` is on); `nil` when both
    /// `[vas]` and `[smarttap]` are disabled (a reload may change it).
    let merchants: @Sendable () -> [String]?
    let vasReads: PassReadQueue
    /// `[socket] vas_reads_per_uid` and `[web] vas_reads_per_token`, counted per owner and reader
    /// (one count for both names).
    let pending: PendingVASReads
    let knows: @Sendable (ReaderID) -> Bool

    /// A handler whose merchants are `merchants()` at each request.
    init(
        merchants: @escaping @Sendable () -> [String]?, vasReads: PassReadQueue, pending: PendingVASReads,
        knows: @escaping @Sendable (ReaderID) -> Bool
    ) {
        self.merchants = merchants
        self.vasReads = vasReads
        self.pending = pending
        self.knows = knows
    }

    /// A handler whose merchants never change.
    init(merchants: [String]?, vasReads: PassReadQueue, pending: PendingVASReads, knows: @escaping @Sendable (ReaderID) -> Bool) {
        self.init(merchants: { merchants }, vasReads: vasReads, pending: pending, knows: knows)
    }

    static var isAudited: Bool { true }
    static func auditedReader(of params: VASReadParams) -> ReaderID? { params.reader }

    func handle(_ params: VASReadParams, context: RequestContext) async -> MethodReply<VASReadResult> {
        let method = Self.method.rawValue
        guard let configured = merchants() else {
            return .failure(
                JSONRPCError(
                    .vasDisabled,
                    "Apple VAS is disabled: set [vas] enabled = true and configure [[vas.merchants]] in passtapd.toml (or [smarttap] for Android phones)"))
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
        let owner = context.peer.owner
        guard pending.begin(owner, reader: params.reader) else {
            let key = if case .uid = owner { "[socket] vas_reads_per_uid" } else { "[web] vas_reads_per_token" }
            return .failure(
                JSONRPCError(
                    .busy,
                    "\(owner) already has \(pending.limit(for: owner)) \(method) waiting on \(params.reader) (\(key)): wait for its answer, or cancel it by closing its connection"
                ))
        }
        defer { pending.end(owner, reader: params.reader) }
        do {
            let result = try await vasReads.nextTap(
                on: params.reader, merchants: params.merchants.map(Set.init), timeout: .milliseconds(params.timeoutMilliseconds))
            return .result(VASReadResult(reader: params.reader, result: result))
        } catch .timeout {
            return .failure(JSONRPCError(.timeout, "no card arrived on \(params.reader) within \(params.timeoutMilliseconds) ms: tap again, or raise timeout_ms"))
        } catch .skippedOnly(let taps) {
            var error = JSONRPCError(
                .timeout,
                "no phone arrived on \(params.reader) within \(params.timeoutMilliseconds) ms; \(taps) tap\(taps == 1 ? "" : "s") of tags or memory cards came, which have no wallet and do not count: tap a phone, or raise timeout_ms")
            error.data?.skippedTaps = taps
            return .failure(error)
        } catch {
            return .failure(JSONRPCError(.shuttingDown, "the \(method) was cancelled (the daemon is stopping)"))
        }
    }
}

/// The `pass.read`s and `vas.read`s waiting, per owner (a user, or a web token) and reader, against
/// `[socket] vas_reads_per_uid` and `[web] vas_reads_per_token`: no one owner can pile up waiting
/// reads (each waiting read is answered by the next tap, and adds its merchants to what it asks).
final class PendingVASReads: Sendable {
    private let currentLimit: @Sendable (ClientPeer.Owner) -> Int
    private let counts = Mutex([Key: Int]())

    private struct Key: Hashable {
        var owner: ClientPeer.Owner
        var reader: ReaderID
    }

    /// The same limit for every owner.
    init(limit: Int) { currentLimit = { _ in limit } }

    /// Counts against `limit(owner)` as it is at each new `vas.read` (a reload may change it;
    /// reads already waiting stay).
    init(limit: @escaping @Sendable (ClientPeer.Owner) -> Int) { currentLimit = limit }

    /// The most `vas.read`s `owner` may have waiting on one reader now.
    func limit(for owner: ClientPeer.Owner) -> Int { currentLimit(owner) }

    /// Counts a new `vas.read`; `false` (and nothing counted) when the owner is at its limit.
    func begin(_ owner: ClientPeer.Owner, reader: ReaderID) -> Bool {
        let limit = currentLimit(owner)
        return counts.withLock { counts in
            let key = Key(owner: owner, reader: reader)
            guard counts[key, default: 0] < limit else { return false }
            counts[key, default: 0] += 1
            return true
        }
    }

    /// Ends one counted by ``begin(_:reader:)``.
    func end(_ owner: ClientPeer.Owner, reader: ReaderID) {
        counts.withLock { counts in
            let key = Key(owner: owner, reader: reader)
            let left = counts[key, default: 1] - 1
            counts[key] = left > 0 ? left : nil
        }
    }
}
