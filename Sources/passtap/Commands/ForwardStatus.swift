import ForwardSettings
import ArgumentParser
import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol

/// `passtap forward status`: the outbox and one row per sink.
struct ForwardStatus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the forwarding outbox and each sink's backlog.",
        discussion: """
            First what forwarding does, in words: off (no sink configured), stopped (sinks are \
            configured but the outbox cannot be opened: nothing is kept or sent, and why), or \
            running, with how many sinks fail. Then one row per sink: its name, type (webhook or \
            postgres), state (ok, sending, failing, stopped while the outbox is missing, or \
            removed with its backlog kept until it is dropped), events pending, the age of the \
            oldest, events dead (refused for good; passtap forward retry sends them again), \
            events delivered since passtapd started, when the next attempt is due while \
            retrying, and the last delivery error: its class (connection_refused, tls, auth, \
            outbox_unavailable...) and, for a user with the manage role, its text. With --json, \
            the forward.status answer as the daemon gave it.
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let status = try await CLIRunner.run(options) { session in
            try await session.call(.forwardStatus, NoParams(), as: ForwardStatusResult.self)
        }
        if options.json { return try Output.json(status) }
        for line in ForwardTable.lines(status) { print(line) }
    }
}

/// The readable form of a `forward.status` answer. Names and errors come from the config and
/// from remote servers: they are escaped (``UntrustedText``).
enum ForwardTable {
    static let header = ["NAME", "TYPE", "STATE", "PENDING", "OLDEST", "DEAD", "DELIVERED", "RETRY IN", "LAST ERROR"]

    static func lines(_ status: ForwardStatusResult) -> [String] {
        guard status.enabled || !status.sinks.isEmpty else {
            return ["forwarding is off: no [[forward.webhooks]] or [[forward.postgres]] in passtapd.toml (docs/configuration.md, \"[forward]\")"]
        }
        var lines = [summary(status)]
        if !status.enabled {
            lines.append(outboxProblem(status))
        }
        let rows: [[String]] = status.sinks.map { sink -> [String] in
            [
                UntrustedText.escaped(sink.name), sink.type.rawValue,
                state(sink, outboxOpen: status.enabled),
                "\(sink.pending)", sink.oldestPendingAgeMilliseconds.map(age) ?? "-", "\(sink.dead)", "\(sink.delivered)",
                sink.retryInMilliseconds.map(age) ?? "-", lastError(sink),
            ]
        }
        guard !rows.isEmpty else { return lines + ["no sinks"] }
        let table = [header] + rows
        let widths: [Int] = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        for row in table {
            // The last column (the error) is not padded.
            let cells: [String] = row.indices.map { index -> String in
                index == row.count - 1 ? row[index] : row[index].padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            lines.append(cells.joined(separator: "  "))
        }
        return lines
    }

    /// The first line, in words: what forwarding does, and how many sinks fail.
    static func summary(_ status: ForwardStatusResult) -> String {
        let count = status.sinks.count
        let sinks = "\(count) sink\(count == 1 ? "" : "s")"
        guard status.enabled else {
            return "forwarding is stopped: \(sinks) configured, but the outbox cannot be opened, so no event is kept or sent"
        }
        let failing = status.sinks.filter { state($0, outboxOpen: true) == "failing" }.count
        let health = failing == 0 ? "\(sinks), none failing" : "\(failing) of \(sinks) failing"
        return "forwarding as \(UntrustedText.escaped(status.source)): \(health); \(bytes(status.pendingBytes)) pending of \(bytes(status.maxPendingBytes)), \(status.dropped) dropped since start"
    }

    /// Why the outbox cannot be opened, with what to do (`manage`), or the class alone and how to
    /// learn more.
    static func outboxProblem(_ status: ForwardStatusResult) -> String {
        if let text = status.sinks.lazy.compactMap(\.lastError).first {
            return "the outbox: \(UntrustedText.escaped(text))"
        }
        return "the outbox: \(ForwardFailureReason.outboxUnavailable.rawValue) (why, and what to do, needs the manage role: ask an admin, or see passtapd's log)"
    }

    /// A sink's state in a word: `removed (drop at …)`, `stopped` (the outbox is not open),
    /// `failing` (its last attempt failed and events wait), `sending` (events wait), or `ok`.
    static func state(_ sink: ForwardSinkStatus, outboxOpen: Bool) -> String {
        if sink.state == .removed {
            return "removed" + (sink.dropAt.map { " (drop at \(UntrustedText.escaped($0)))" } ?? "")
        }
        if !outboxOpen { return "stopped" }
        if sink.retryInMilliseconds != nil || (sink.lastErrorReason != nil && sink.pending > 0) { return "failing" }
        return sink.pending > 0 ? "sending" : "ok"
    }

    /// `auth: authentication failed: ...`; the class alone (and why) when the daemon left the
    /// text out for a user without `manage`; `-` when there is no error.
    static func lastError(_ sink: ForwardSinkStatus) -> String {
        switch (sink.lastErrorReason, sink.lastError) {
        case (let reason?, let text?): return "\(reason.rawValue): \(UntrustedText.escaped(text))"
        case (nil, let text?): return UntrustedText.escaped(text)
        case (let reason?, nil): return "\(reason.rawValue) (the error's text needs the manage role)"
        case (nil, nil): return "-"
        }
    }

    private static func age(_ milliseconds: Int) -> String {
        Output.duration(Double(milliseconds) / 1000)
    }

    /// `5120` → `5.0 KiB`.
    static func bytes(_ count: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f", value) + " " + units[unit]
    }
}
