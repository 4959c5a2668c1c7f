import ArgumentParser
import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol

/// `passtap watch`: one readable line per event, live (after an optional replay).
struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print events as they happen, one line each.",
        discussion: "With --since N, the daemon first replays buffered events from number N on, then goes live.")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Replay from this event number (inclusive) before going live.")
    var since: UInt64?

    @Option(help: ArgumentHelp("Only these kinds, comma-separated (e.g. read.result,card.inserted).", valueName: "kinds"))
    var kinds: String?

    @Option(help: "Stop after this many events (for scripts).")
    var count: Int?

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        if let kinds {
            for name in kinds.split(separator: ",") where EventKind(rawValue: String(name)) == nil {
                throw ValidationError("unknown kind '\(name)'; kinds: \(EventKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
        }
    }

    func run() async throws {
        let params = EventsSubscribeParams(since: since, kinds: kinds.map { $0.split(separator: ",").compactMap { EventKind(rawValue: String($0)) } })
        let json = options.json
        let limit = count
        try await CLIRunner.run(options, timeout: false) { session in
            let subscribed = try await session.call(.eventsSubscribe, params, as: EventsSubscribeResult.self)
            if json {
                try Output.json(subscribed)
            } else {
                let instance = UntrustedText.escaped(subscribed.instance)
                FileHandle.standardError.write(Data("watching passtapd instance \(instance) (events \(subscribed.oldestSeq)..\(subscribed.nextSeq - 1) buffered); Ctrl-C to stop\n".utf8))
            }
            var printed = 0
            while let line = try await session.nextLine() {
                let text = json ? try terminalSafe(line) : render(line)
                FileHandle.standardOutput.write(Data((text + "\n").utf8))
                printed += 1
                if let limit, printed >= limit { return }
            }
            throw CLIError.closed
        }
    }

    /// The daemon's line re-encoded for a terminal (``StrictJSON/terminalSafe(_:)``).
    private func terminalSafe(_ line: Data) throws -> String {
        do {
            return try StrictJSON.terminalSafe(line)
        } catch {
            throw CLIError.badAnswer("the daemon sent a line that is not JSON (\(error)): \(UntrustedText.escaped(String(decoding: line.prefix(200), as: UTF8.self)))")
        }
    }

    private func render(_ line: Data) -> String {
        if let event = try? JSONDecoder().decode(JSONRPCNotification<Event>.self, from: line),
            event.method == RPCNotificationMethod.event.rawValue
        {
            return EventLine.render(event.params)
        }
        if let dropped = try? JSONDecoder().decode(JSONRPCNotification<EventsDroppedParams>.self, from: line),
            dropped.method == RPCNotificationMethod.eventsDropped.rawValue
        {
            let p = dropped.params
            return "! missed \(p.count) event\(p.count == 1 ? "" : "s") (#\(p.firstSeq)..#\(p.lastSeq)); the daemon's buffer or this client's queue overflowed"
        }
        return "? " + UntrustedText.escaped(String(decoding: line, as: UTF8.self))
    }
}
