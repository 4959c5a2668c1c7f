import Foundation
import PassTapTestNetwork

/// A well-behaved subscriber: subscribed from `since: 1` before anything else happens, it keeps
/// every event line it reads, so a test can check that it saw every event exactly once.
final class EventLedger {
    private let socket: LineClient
    /// Every event's `params`, in the order received.
    private(set) var events: [[String: Any]] = []
    /// Every `events.dropped` notification's `params`.
    private(set) var dropped: [[String: Any]] = []
    /// How many events a step began after (see ``mark()`` and ``since(_:)``).
    private var probes = 0

    /// Subscribes on a new connection to `rig`'s daemon, from the first event on.
    init(rig: Rig) throws {
        (socket, _) = try rig.subscriber(since: 1)
    }

    /// Reads until an event of `kind` comes (keeping every line on the way) and returns its params.
    @discardableResult
    func next(_ kind: String, timeout: Double = 20) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let message = try read(until: deadline, what: "a \(kind) event")
            if message["method"] as? String == "event", let params = message["params"] as? [String: Any], params["kind"] as? String == kind {
                return params
            }
        }
    }

    /// The number of events seen so far: a step's events are those after it.
    func mark() -> Int { events.count }

    /// The events seen since `mark`.
    func since(_ mark: Int) -> [[String: Any]] { Array(events[mark...]) }

    /// Whether the connection still serves this subscriber: a `status` request sent on it is
    /// answered (events that come first are kept).
    func answersOnItsConnection() -> Bool {
        probes += 1
        let id = "ledger-\(probes)"
        guard (try? socket.sendLine(#"{"jsonrpc":"2.0","id":"\#(id)","method":"status"}"#)) != nil else { return false }
        let deadline = Date().addingTimeInterval(20)
        while let message = try? read(until: deadline, what: "the answer to \(id)") {
            if message["id"] as? String == id { return message["result"] != nil }
        }
        return false
    }

    /// What is wrong with the stream so far: a gap or a duplicate in `seq` (which starts at 1), or
    /// an `events.dropped`. Empty when every event came exactly once.
    var problems: [String] {
        var found: [String] = dropped.map { "events.dropped \($0)" }
        let seqs = events.compactMap { $0["seq"] as? Int }
        if seqs.count != events.count { found.append("an event without seq") }
        for (index, seq) in seqs.enumerated() where seq != index + 1 {
            found.append("event \(index + 1) has seq \(seq) (\(seqs.count) events: \(seqs.first ?? 0)...\(seqs.last ?? 0))")
            break
        }
        return found
    }

    /// `#4–#6 card.inserted, read.result, card.removed` for a run of events.
    static func describe(_ events: [[String: Any]]) -> String {
        guard let first = events.first?["seq"] as? Int, let last = events.last?["seq"] as? Int else { return "no event" }
        let kinds = events.compactMap { $0["kind"] as? String }.joined(separator: ", ")
        return first == last ? "#\(first) \(kinds)" : "#\(first)–#\(last) \(kinds)"
    }

    private func read(until deadline: Date, what: String) throws -> [String: Any] {
        let line = try socket.readLine(timeout: max(deadline.timeIntervalSinceNow, 0.001), what: what)
        guard let message = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Rig.Failure(description: "the subscriber got a line that is not an object: \(line)")
        }
        if message["method"] as? String == "event", let params = message["params"] as? [String: Any] {
            events.append(params)
        } else if message["method"] as? String == "events.dropped", let params = message["params"] as? [String: Any] {
            dropped.append(params)
        }
        return message
    }
}
