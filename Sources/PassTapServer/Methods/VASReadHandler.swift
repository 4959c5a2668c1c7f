import PassTapCore
import PassTapProtocol

/// `vas.read`: waits for the next tap on a reader and answers its VAS result.
struct VASReadHandler: MethodHandler {
    static let method = RPCMethod.vasRead
    static let role = AccessRole.read
    /// The configured pass type ids; `nil` when `[vas]` is disabled.
    let merchants: [String]?
    let vasReads: VASReadQueue
    let knows: @Sendable (ReaderID) -> Bool

    func handle(_ params: VASReadParams, context: RequestContext) async -> MethodReply<VASReadResult> {
        let method = Self.method.rawValue
        guard let configured = merchants else {
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
