public import ForwardSettings
import ConfigKit
import Foundation
public import PassTapCore

extension ConfigLoader {
    /// Refuses a configuration whose sinks need an outbox this process cannot keep
    /// (``OutboxFolder``), as a key file it cannot use is refused: with the file, the line of
    /// `[forward] outbox` (or of the first sink, when the key is not set) and the key.
    ///
    /// `passtapd` runs it at start, and a reload for the outbox it would open; `--check-config`
    /// with `allowingMissingStateDirectory`, for the user it runs as.
    /// - Parameters:
    ///   - configuration: the configuration read from `file`; without a sink, nothing is judged.
    ///   - outbox: the outbox that would be opened, when it is not the file's: a reload keeps the
    ///     running daemon's (`[forward] outbox` is restart-only).
    ///   - allowingMissingStateDirectory: accept a missing ``OutboxFolder/stateDirectory``, which
    ///     systemd's `StateDirectory=` creates when the unit starts (`--check-config` runs before).
    /// - Returns: a note for the operator when the missing state directory was accepted.
    public static func checkOutboxFolder(
        of configuration: Configuration, file: String, outbox: String? = nil, allowingMissingStateDirectory: Bool = false
    ) throws(ConfigurationError) -> String? {
        guard !configuration.forward.sinks.isEmpty else { return nil }
        let path = outbox ?? configuration.forward.outbox
        guard let problem = OutboxFolder.problem(forOutboxAt: path) else { return nil }
        if allowingMissingStateDirectory, problem == .missing(folder: OutboxFolder.stateDirectory) {
            return "the outbox's folder \(OutboxFolder.stateDirectory) does not exist yet: the unit's StateDirectory= creates it when passtapd starts (running passtapd without the unit, create it first)"
        }
        let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        let locator = SourceLocator(text: text)
        let keyLine = locator.line(table: ["forward"], key: "outbox")
        let line =
            keyLine ?? locator.line(table: ["forward", "webhooks"], index: 0, key: nil)
            ?? locator.line(table: ["forward", "postgres"], index: 0, key: nil) ?? locator.line(table: ["forward"], key: nil)
        var which = "the outbox \(path)"
        if path != configuration.forward.outbox {
            which += " (the running one: [forward] outbox changes at restart)"
        } else if keyLine == nil {
            which += " (the default, as [forward] outbox is not set)"
        }
        throw ConfigurationError(
            file: file, line: line, keyPath: "forward.outbox",
            problem: "the sinks need \(which): \(problem.sentence(user: OutboxFolder.currentUser()))")
    }
}
