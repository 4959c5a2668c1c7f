import Foundation

/// The rows of `docs/reliability.md`'s table: one per hostile input, with what the daemon did,
/// what the well-behaved subscriber saw, and passtapd's memory and CPU before and after.
///
/// Printed to stderr; also appended to the file `PASSTAP_RELIABILITY_REPORT` names, when set (the
/// table's header first, if the file is empty).
final class ReliabilityReport {
    static let header = """
        | input | what the daemon did | what the subscriber saw | passtapd RSS before → after | passtapd CPU ms |
        |---|---|---|---|---|
        """

    private var rows: [String] = []
    private let pid: Int32
    private var before: ProcessFigures?

    /// A report on the daemon `pid`.
    init(pid: Int32) {
        self.pid = pid
    }

    /// Reads the figures an input's row starts from.
    func begin() throws {
        before = try ProcessFigures.of(pid)
    }

    /// Ends an input's row, reading the figures after it.
    func end(_ input: String, daemon: String, subscriber: String) throws {
        let after = try ProcessFigures.of(pid)
        let start = before ?? after
        let cells = [
            input, daemon, subscriber, ProcessFigures.residentChange(start, after),
            "\(after.cpuMilliseconds - start.cpuMilliseconds)",
        ]
        rows.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
        before = nil
    }

    /// Prints the rows to stderr and appends them to `PASSTAP_RELIABILITY_REPORT`'s file, if set.
    func flush() {
        guard !rows.isEmpty else { return }
        let text = rows.joined(separator: "\n") + "\n"
        FileHandle.standardError.write(Data((Self.header + "\n" + text).utf8))
        if let path = ProcessInfo.processInfo.environment["PASSTAP_RELIABILITY_REPORT"], !path.isEmpty {
            let empty = ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) == 0
            if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
            if let file = FileHandle(forWritingAtPath: path) {
                file.seekToEndOfFile()
                file.write(Data(((empty ? Self.header + "\n" : "") + text).utf8))
                file.closeFile()
            }
        }
        rows = []
    }
}
