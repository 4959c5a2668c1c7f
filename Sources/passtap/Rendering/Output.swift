import Foundation
import PassTapCore
import PassTapProtocol

/// Printing helpers shared by the subcommands.
enum Output {
    /// Prints a value as one line of JSON, as the daemon sent it.
    static func json<Value: Encodable>(_ value: Value) throws {
        print(String(decoding: try NDJSON.makeEncoder().encode(value), as: UTF8.self))
    }

    /// Prints a reader table.
    static func readers(_ readers: [ReaderInfo]) {
        guard !readers.isEmpty else {
            print("no readers (is a reader plugged in, and pcscd running?)")
            return
        }
        let width = readers.map(\.id.rawValue.count).max() ?? 0
        for reader in readers {
            var line = "\(reader.id.rawValue.padding(toLength: width, withPad: " ", startingAt: 0))  \(reader.backend)  \(reader.state.rawValue)"
            if let reason = reader.reason { line += "  (\(reason))" }
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
