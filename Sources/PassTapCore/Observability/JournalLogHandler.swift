import Foundation
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// Writes log lines to stderr for systemd's journal: each starts with its syslog priority as
/// `<N>` (sd-daemon(3)), so `journalctl -p warning` finds the warnings, followed by the label,
/// the level, the message and the metadata. No timestamp: the journal stamps every line.
///
/// `passtapd` uses it when ``isJournalStream(environment:)`` (stderr is the journal stream systemd
/// named in `$JOURNAL_STREAM`), wrapped in an ``EscapingLogHandler`` like the stream handler.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    /// Metadata added to every line (swift-log logs a warning when a handler without this
    /// property is given a provider, as ``EscapingLogHandler`` does at every start).
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let write: @Sendable (String) -> Void

    /// A handler for `label` writing whole lines through `write` (stderr by default).
    public init(label: String, write: @escaping @Sendable (String) -> Void = JournalLogHandler.standardError) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The syslog priority of a level: critical 2, error 3, warning 4, notice 5, info 6, debug
    /// and trace 7.
    public static func priority(of level: Logger.Level) -> Int {
        switch level {
        case .critical: return 2
        case .error: return 3
        case .warning: return 4
        case .notice: return 5
        case .info: return 6
        case .debug, .trace: return 7
        }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        var line = "<\(Self.priority(of: event.level))>\(label) \(event.level): \(event.message)"
        if !merged.isEmpty {
            line += " " + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        // One line per event: a newline in a message would start a line of the wrong priority.
        write(line.replacingOccurrences(of: "\n", with: " ") + "\n")
    }

    /// Whether stderr is the stream `$JOURNAL_STREAM` names (its `device:inode`), as systemd
    /// sets it for a service whose StandardError= goes to the journal.
    public static func isJournalStream(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Writes `line` to stderr in one call.
    public static let standardError: @Sendable (String) -> Void = { line in
        FileHandle.standardError.write(Data(line.utf8))
    }
}
