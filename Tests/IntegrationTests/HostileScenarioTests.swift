import Foundation
import PassTapTestNetwork
import Testing

#if canImport(Glibc)
import Glibc
#endif

// Nested in `PCSCScenarioTests` (`.serialized`): these start the machine's only pcscd too.
extension PCSCScenarioTests {
    /// Hostile input through the real stack (docs/reliability.md, "Hostile input through the real
    /// stack"): pcscd, the vsmartcard-vpcd reader, the
    /// virtual iPhone misbehaving in every way `scripts/rig/virtual_iphone.py` knows, hostile
    /// socket peers, and the built passtapd. A well-behaved subscriber, subscribed from the first
    /// event, must see every event exactly once and stay connected; after each hostile tap the next
    /// normal tap is read, and after each hostile peer the till is served. Each input's figures
    /// (passtapd's RSS and CPU) go to `docs/reliability.md` (see ``ReliabilityReport``).
    @Suite(.serialized) struct HostileScenarioTests {
        static let coffee = PhoneRig.coffee
        static let message = PhoneRig.message

        /// A phone rig with one merchant (coffee), its ledger subscribed before anything happens
        /// and the reader up; `socket` adds `[socket]` keys.
        static func rig(socket: String = "") throws -> PhoneRig {
            try PhoneRig(config: PhoneRig.config(merchants: [PhoneRig.coffee], socket: socket))
        }

        /// One hostile tap: the phone's line commands that make it (and undo it), and what the
        /// `read.result` must say; `check` returns what the daemon did, for the report.
        struct HostileTap: CustomTestStringConvertible {
            let input: String
            let setUp: [String]
            let tearDown: [String]
            /// The phone leaves once it got a command starting with this, not after the `read.result`.
            let leavingAfter: String?
            let check: ([String: Any]) -> String

            var testDescription: String { input }

            init(_ input: String, _ misbehaviour: String, leavingAfter: String? = nil, check: @escaping ([String: Any]) -> String) {
                self.init(input, setUp: ["misbehave \(misbehaviour)"], tearDown: ["misbehave none"], leavingAfter: leavingAfter, check: check)
            }

            init(
                _ input: String, setUp: [String], tearDown: [String], leavingAfter: String? = nil,
                check: @escaping ([String: Any]) -> String
            ) {
                self.input = input
                self.setUp = setUp
                self.tearDown = tearDown
                self.leavingAfter = leavingAfter
                self.check = check
            }
        }

        @Test func everyHostileTapIsReportedAndTheNextTapReadsWithNoEventLost() throws {
            let hostile = try Self.rig()
            defer { hostile.stop() }
            // A normal tap first: the replay case resends its cryptogram.
            try hostile.normalTap(after: "the start")
            for step in Self.hostileTaps {
                let mark = hostile.ledger.mark()
                try hostile.report.begin()
                for command in step.setUp { try hostile.rig.cardCommand(command) }
                let result = try hostile.tapUntilRead(leavingAfter: step.leavingAfter)
                for command in step.tearDown { try hostile.rig.cardCommand(command) }
                let did = step.check(result)
                let hostileEvents = hostile.ledger.since(mark)
                try hostile.normalTap(after: step.input)
                hostile.checkSubscriber(after: step.input)
                #expect(Rig.isAlive(hostile.rig.daemonPID), "passtapd died after \(step.input)")
                let seen = "\(EventLedger.describe(hostileEvents)); next tap \(EventLedger.describe(Array(hostile.ledger.since(mark).dropFirst(hostileEvents.count)))) with the pass; none lost"
                try hostile.report.end(step.input, daemon: did, subscriber: seen)
            }
            #expect(hostile.ledger.problems.isEmpty, "\(hostile.ledger.problems)")
        }
    }
}

/// The hostile suite's steps on its rig.
extension PhoneRig {
    /// A normal tap, which must give the pass.
    func normalTap(after input: String) throws {
        let entry = Self.entry(in: try tapUntilRead())
        #expect(entry?["status"] as? String == "success", "the tap after \(input): \(entry ?? [:])")
        #expect(entry?["message"] as? String == Self.message, "the tap after \(input)")
    }

    /// The till: a new connection asks `status`, then `vas.read` for the coffee pass, which
    /// the next tap answers (a tap before the call is queued is a plain tap: tap again).
    /// Returns what it got, for the report.
    func tillIsServed(after input: String) throws -> String {
        let till = try LineClient(path: rig.socketPath)
        try till.sendLine(#"{"jsonrpc":"2.0","id":1,"method":"status"}"#)
        let status = try till.readJSON(what: "the till's status") { $0["id"] as? Int == 1 }
        #expect((status["result"] as? [String: Any])?["protocol"] as? Int == 1, "status after \(input): \(status)")
        try till.sendLine(
            #"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"pcsc:Virtual PCD 00 00","timeout_ms":30000}}"#)
        for taps in 1...5 {
            try tapUntilRead()
            if let answer = try? till.readJSON(timeout: 1, what: "the till's vas.read", until: { $0["id"] as? Int == 2 }) {
                let entry = (answer["result"] as? [String: Any]).flatMap { Self.entry(in: $0) }
                #expect(entry?["status"] as? String == "success", "vas.read after \(input): \(answer)")
                #expect(entry?["message"] as? String == Self.message, "vas.read after \(input)")
                return "till: status, then vas.read read the pass (\(taps) tap\(taps == 1 ? "" : "s"))"
            }
        }
        Issue.record("the till's vas.read was not answered by 5 taps after \(input)")
        return "till: vas.read NOT answered"
    }

    /// The subscriber has seen every event once, got no `events.dropped`, and its
    /// connection still answers.
    func checkSubscriber(after input: String) {
        #expect(ledger.problems.isEmpty, "after \(input): \(ledger.problems)")
        #expect(ledger.answersOnItsConnection(), "after \(input): the subscriber's connection no longer answers")
    }
}
