import ISO7816
import PassTapCore

/// A card that answers from a script, for tests that encode what a hostile card makes a session
/// publish: SELECT by AID from ``applications`` (`6A82` for others), anything else from
/// ``onOther`` (`6D00` when unset).
final class ScriptedCard: CardChannel {
    /// AID hex → the data answered with `90 00`.
    var applications: [String: [UInt8]] = [:]
    /// Answers every command that is not a SELECT by name.
    var onOther: (([UInt8]) -> [UInt8])? = nil
    var capacity = ChannelCapacity.extendedAPDU
    private(set) var received: [[UInt8]] = []

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        received.append(command)
        guard command.count >= 5 else { return [0x67, 0x00] }
        if command[0] == 0x00, command[1] == 0xA4, command[2] == 0x04 {
            let aid = Array(command[5..<(5 + Int(command[4]))]).hexString
            guard let data = applications[aid] else { return [0x6A, 0x82] }
            return data + [0x90, 0x00]
        }
        return onOther?(command) ?? [0x6D, 0x00]
    }
}
