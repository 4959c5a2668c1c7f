import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol

/// Printing helpers shared by the subcommands.
enum Output {
    /// Prints a value as one line of JSON, as the daemon sent it but for the controls and
    /// bidirectional characters inside strings, which are `\u` escapes
    /// (``StrictJSON/terminalSafe(_:)``). Flushed at once: `watch` writes its events straight to
    /// the file descriptor after this line, and they must not overtake it in a pipe.
    static func json<Value: Encodable>(_ value: Value) throws {
        print(try StrictJSON.terminalSafe(NDJSON.makeEncoder().encode(value)))
        fflush(nil)
    }

    /// Prints a reader table, with each reader's taps by outcome when it has had any. Reader
    /// names and reasons come from the readers and their drivers: they are escaped
    /// (``UntrustedText``).
    static func readers(_ readers: [ReaderInfo]) {
        guard !readers.isEmpty else {
            print("no readers (is a reader plugged in, and pcscd running?)")
            return
        }
        let ids = readers.map { UntrustedText.escaped($0.id.rawValue) }
        let width = ids.map(\.count).max() ?? 0
        for (reader, id) in zip(readers, ids) {
            var line = "\(id.padding(toLength: width, withPad: " ", startingAt: 0))  \(UntrustedText.escaped(reader.backend))  \(reader.state.rawValue)"
            if let taps = reader.taps, taps.total > 0 {
                // Only the outcomes that happened: "taps: pass 12, error 1".
                line += "  taps: " + TapOutcome.allCases.filter { taps[$0] > 0 }.map { "\($0.rawValue) \(taps[$0])" }.joined(separator: ", ")
            }
            if let reason = reader.reason { line += "  (\(UntrustedText.escaped(reason)))" }
            print(line)
        }
    }

    /// `3725.2` → `1h02m05s`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds)
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        if h > 0 { return String(format: "%dh%02dm%02ds", h, m, s) }
        if m > 0 { return String(format: "%dm%02ds", m, s) }
        return String(format: "%.1fs", seconds)
    }
}
