import ISO7816
import PassTapCore

/// Turns what a person typed for READER into a reader id: the exact id, else the one reader whose
/// id contains it (case-insensitive).
///
/// Its ``CLIError/reader(_:)`` lists the readers one a line: each name is escaped here
/// (``UntrustedText``), so the message's own line breaks are printed as they are.
enum ReaderResolver {
    static func resolve(_ typed: String, among readers: [ReaderInfo]) throws(CLIError) -> ReaderID {
        if let exact = readers.first(where: { $0.id.rawValue == typed }) { return exact.id }
        let matches = readers.filter { $0.id.rawValue.lowercased().contains(typed.lowercased()) }
        switch matches.count {
        case 1:
            return matches[0].id
        case 0:
            let known = readers.map { "  \(UntrustedText.escaped($0.id.rawValue))" }.joined(separator: "\n")
            throw .reader("no reader matches \(UntrustedText.quoted(typed)). Readers:\n\(known.isEmpty ? "  (none)" : known)")
        default:
            let names = matches.map { "  \(UntrustedText.escaped($0.id.rawValue))" }.joined(separator: "\n")
            throw .reader("\(UntrustedText.quoted(typed)) matches \(matches.count) readers; be more specific:\n\(names)")
        }
    }
}
