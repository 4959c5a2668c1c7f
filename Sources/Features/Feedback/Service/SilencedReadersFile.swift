import FeedbackSettings
import Foundation
import PassTapCore

/// The readers whose own detection beep passtapd turned off, kept across restarts in
/// `feedback-silenced.json` in systemd's state directory (`$STATE_DIRECTORY`, /var/lib/passtap
/// under the unit): an ACR1252U keeps the change in its flash, so a passtapd started with
/// `[feedback]` removed must know which readers to give their beep back (docs/feedback.md, "The
/// reader's own beep"). Without a state directory (passtapd run by hand), nothing is kept, and
/// only a reload restores the beep.
struct SilencedReadersFile: Sendable {
    /// The file; `nil`: keep nothing.
    let path: String?

    /// The file in `stateDirectory` (the first of `$STATE_DIRECTORY`'s colon-separated folders).
    init(stateDirectory: String?) {
        path = stateDirectory.flatMap { $0.split(separator: ":").first }.map { "\($0)/feedback-silenced.json" }
    }

    /// What the file holds: a reader's id and its model. Nothing is taken from the file but
    /// models PassTap knows.
    private struct Contents: Codable {
        var readers: [String: String]
    }

    /// The readers the file lists; none when it is missing or unreadable.
    func load() -> [ReaderID: FeedbackModel] {
        guard let path, let data = FileManager.default.contents(atPath: path),
            let contents = try? JSONDecoder().decode(Contents.self, from: data)
        else { return [:] }
        var readers: [ReaderID: FeedbackModel] = [:]
        for (id, model) in contents.readers {
            if let model = FeedbackModel(rawValue: model) { readers[ReaderID(id)] = model }
        }
        return readers
    }

    /// Writes `readers` in place of what the file held (a new file renamed over it); `false`
    /// when it could not be written.
    @discardableResult
    func save(_ readers: [ReaderID: FeedbackModel]) -> Bool {
        guard let path else { return true }
        let contents = Contents(readers: Dictionary(uniqueKeysWithValues: readers.map { ($0.key.rawValue, $0.value.rawValue) }))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(contents) else { return false }
        return (try? data.write(to: URL(fileURLWithPath: path), options: .atomic)) != nil
    }
}
