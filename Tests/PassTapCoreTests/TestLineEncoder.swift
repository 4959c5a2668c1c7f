import Foundation
import PassTapCore
import Synchronization

/// The hub's line encoder in Core's own tests (the wire's is in PassTapProtocol): `seq` at a fixed
/// width, then the event as sorted-key JSON with `seq` 0, so that every event with one payload
/// counts the same bytes whatever its number. Counts the lines it makes.
final class TestLineEncoder: EventLineEncoder {
    struct Line: EventLine {
        let text: String
        var byteCount: Int { text.utf8.count }
    }

    private let made = Mutex(0)

    /// How many lines it made.
    var count: Int { made.withLock { $0 } }

    func line(for event: Event) -> any EventLine {
        made.withLock { $0 += 1 }
        var unnumbered = event
        unnumbered.seq = 0
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = (try? encoder.encode(unnumbered)).map { String(decoding: $0, as: UTF8.self) } ?? "unencodable"
        let seq = String(event.seq)
        return Line(text: String(repeating: "0", count: 20 - seq.count) + seq + " " + json + "\n")
    }
}
