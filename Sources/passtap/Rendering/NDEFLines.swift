import ISO7816
import PassTapCore

/// The readable form of a tag's NDEF record: one line for the message, then one per record with
/// its type and its URI or text, cut to ``maximumCharacters`` so that each stays on one line.
///
/// ```
/// ndef type2: 2 records
/// ndef U: uri="https://passtap.example/tag"
/// ndef T en: text="Hello from PassTap"
/// ndef text/vcard: media, 212 bytes
/// ```
///
/// A value that is cut ends in `…` after its quotes; `--json` prints the whole record. Record
/// types, languages, URIs and texts come from the tag: each goes through ``UntrustedText``, so a
/// line break in a text is printed `\u{A}` and the record stays on its line.
enum NDEFLines {
    /// The most characters of a URI or a text printed before it is cut.
    static let maximumCharacters = 80

    static func render(_ ndef: NDEFReadResult) -> [String] {
        var head = "ndef \(ndef.tagType.rawValue): \(ndef.recordCount) record\(ndef.recordCount == 1 ? "" : "s")"
        if ndef.withheld == .access { head += " (records withheld: this connection lacks the read role)" }
        if ndef.truncated { head += " (some left out to keep the event's size: the rest is not on the wire)" }
        if let problem = ndef.problem { head += " — \(UntrustedText.escaped(problem))" }
        return [head] + (ndef.records ?? []).map(record)
    }

    static func record(_ record: NDEFRecordReport) -> String {
        var line = "ndef " + (record.type.isEmpty ? record.tnf : UntrustedText.escaped(record.type))
        if let language = record.language { line += " \(UntrustedText.escaped(language))" }
        line += ":"
        if let uri = record.uri {
            line += " uri=\(cut(uri))"
        } else if let text = record.text {
            line += " text=\(cut(text))"
        } else {
            line += " \(record.content ?? record.tnf), \(record.payloadLength) byte\(record.payloadLength == 1 ? "" : "s")"
        }
        if let problem = record.problem { line += " — \(UntrustedText.escaped(problem))" }
        return line
    }

    /// `text` quoted and escaped, its first ``maximumCharacters`` characters followed by `…` when
    /// it is longer.
    static func cut(_ text: String) -> String {
        guard text.count > maximumCharacters else { return UntrustedText.quoted(text) }
        return UntrustedText.quoted(text.prefix(maximumCharacters)) + "…"
    }
}
