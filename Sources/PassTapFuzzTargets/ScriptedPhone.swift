import ISO7816
import PassTapCore
import Synchronization
import VAS

/// A card for the session fuzz targets: fixed answers by command, the fuzzer's where the target
/// puts them. What is not scripted answers as a plain card would (`6A82` to an unknown SELECT,
/// `6D00` to other instructions). Each exchange moves the injected monotonic clock on 1 ms, so a
/// session's budget is spent by exchanges, not by the machine's speed.
final class ScriptedPhone: CardChannel {
    var capacity = ChannelCapacity.extendedAPDU
    /// The whole answer (data and SW) to SELECT `OSE.VAS.01`; `nil` answers `6A82`.
    var vasSelect: [UInt8]?
    /// The whole answer to every GET VAS DATA (`80 CA`).
    var vasData: [UInt8] = [0x6A, 0x83]
    /// The whole answer to SELECT `2PAY.SYS.DDF01`; `nil` answers `6A82`.
    var ppse: [UInt8]?
    /// Whole answers to SELECT by AID, by AID hex.
    var applications: [String: [UInt8]] = [:]
    /// Answers, in order, to every other command (GET RESPONSE), and to a command sent again
    /// right after its own answer (the SELECT or GET VAS DATA re-sent with the Le of a `6Cxx`).
    var afterwards: [[UInt8]] = []
    private var previous: [UInt8]?
    /// Moves on 1 ms per exchange.
    let clock = ExchangeClock()

    /// Every answer sent so far, one after the other.
    private(set) var answers: [UInt8] = []

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        clock.tick()
        let answer = self.answer(to: command)
        answers += answer
        return answer
    }

    private func answer(to command: [UInt8]) -> [UInt8] {
        defer { previous = command }
        if let previous, command.count == previous.count, command.dropLast() == previous.dropLast(), !afterwards.isEmpty {
            return afterwards.removeFirst()
        }
        if command.count >= 5, command[0] == 0x00, command[1] == 0xA4, command[2] == 0x04 {
            let length = Int(command[4])
            let name = Array(command.dropFirst(5).prefix(length))
            if name == VASApplication.aidBytes, let vasSelect { return vasSelect }
            if name == Array("2PAY.SYS.DDF01".utf8), let ppse { return ppse }
            if let answer = applications[name.hexString] { return answer }
        }
        if command.count >= 2, command[0] == 0x80, command[1] == 0xCA { return vasData }
        if !afterwards.isEmpty { return afterwards.removeFirst() }
        return command.count >= 2 && command[1] == 0xA4 ? [0x6A, 0x82] : [0x6D, 0x00]
    }

}

/// The monotonic clock a session engine reads: a fixed start plus 1 ms per exchange so far.
final class ExchangeClock: Sendable {
    private let start = ContinuousClock.now
    private let exchanges = Mutex(0)

    func tick() { exchanges.withLock { $0 += 1 } }

    var now: ContinuousClock.Instant { start + .milliseconds(exchanges.withLock { $0 }) }
}
