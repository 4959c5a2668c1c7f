import ISO7816
import PassTapCore
import PassTapProtocol

/// `card.transmit`: one APDU to the card on a reader, queued behind its session.
struct CardTransmitHandler: MethodHandler {
    static let method = RPCMethod.cardTransmit
    static let role = AccessRole.transmit
    /// `[socket] allow_transmit`, read at each request (a reload may change it).
    let allowed: @Sendable () -> Bool
    let transmit: @Sendable (CommandAPDU, Bool, ReaderID) async throws(ReaderCommandError) -> ResponseAPDU

    /// A handler whose `allow_transmit` is `allowed` now, as a reload may change it.
    init(
        allowed: @escaping @Sendable () -> Bool,
        transmit: @escaping @Sendable (CommandAPDU, Bool, ReaderID) async throws(ReaderCommandError) -> ResponseAPDU
    ) {
        self.allowed = allowed
        self.transmit = transmit
    }

    /// A handler whose `allow_transmit` never changes.
    init(allowed: Bool, transmit: @escaping @Sendable (CommandAPDU, Bool, ReaderID) async throws(ReaderCommandError) -> ResponseAPDU) {
        self.init(allowed: { allowed }, transmit: transmit)
    }

    static let disabled = JSONRPCError(
        .transmitDisabled,
        "card.transmit is disabled (raw APDUs can read payment card data): set [socket] allow_transmit = true in passtapd.toml and reload passtapd to enable it")

    static let isAudited = true
    static func auditedReader(of params: CardTransmitParams) -> ReaderID? { params.reader }

    func handle(_ params: CardTransmitParams, context: RequestContext) async -> MethodReply<CardTransmitResult> {
        guard allowed() else { return .failure(Self.disabled) }
        let method = Self.method.rawValue
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](hex: params.apdu)
        } catch {
            return .failure(.invalidParams(method: method, "apdu: \(error)"))
        }
        let command: CommandAPDU
        do {
            command = try CommandAPDU(bytes: bytes)
        } catch {
            return .failure(.invalidParams(method: method, "apdu \(bytes.hexString) is not a command APDU: \(error)"))
        }
        do {
            let response = try await transmit(command, params.raw, params.reader)
            return .result(
                CardTransmitResult(response: response.data.hexString, sw: response.statusWord.hex, meaning: response.statusWord.meaning))
        } catch {
            return .failure(error.jsonRPCError)
        }
    }
}
