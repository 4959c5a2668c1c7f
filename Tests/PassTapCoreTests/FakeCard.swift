import ISO7816
import PassTapCore

/// An in-process card for session-engine unit tests only (integration tests use pcscd + vpcd).
final class FakeCard: CardChannel {
    /// AID hex → FCI bytes.
    var applications: [String: [UInt8]] = [:]
    /// Answer SELECTs of these AIDs with 61xx first (GET RESPONSE then gives the FCI).
    var chainedAIDs: Set<String> = []
    /// Answers proprietary commands (CLA `80`, such as GET VAS DATA); `6D00` when unset.
    var onProprietary: (([UInt8]) -> [UInt8])? = nil
    /// Throw this transport error on the n-th exchange (1-based).
    var failOnExchange: (number: Int, error: CardTransportError)? = nil
    /// What one exchange can carry (a PN532's 263-byte answers, say).
    var capacity = ChannelCapacity.extendedAPDU
    /// Runs before every answer (a test clock that the card's slowness moves on).
    var onExchange: (() -> Void)? = nil
    private(set) var received: [[UInt8]] = []
    private var pending: [UInt8] = []

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        received.append(command)
        onExchange?()
        if let failure = failOnExchange, failure.number == received.count { throw failure.error }
        guard command.count >= 4 else { return [0x67, 0x00] }
        switch (command[0], command[1], command[2]) {
        case (0x00, 0xA4, 0x04):
            let length = Int(command[4])
            let aid = Array(command[5..<(5 + length)]).hexString
            guard let fci = applications[aid] else { return [0x6A, 0x82] }
            if chainedAIDs.contains(aid) {
                pending = fci
                return [0x61, UInt8(fci.count)]
            }
            return fci + [0x90, 0x00]
        case (0x00, 0xC0, _):
            defer { pending = [] }
            return pending + [0x90, 0x00]
        case (0x80, _, _):
            return onProprietary?(command) ?? [0x6D, 0x00]
        default:
            return [0x6D, 0x00]
        }
    }
}
