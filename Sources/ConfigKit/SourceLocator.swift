/// Finds the line of a key in a TOML file's text, so errors can say where to look.
///
/// toml++ (through TOMLKit) reports lines only for syntax errors; for a value that parses but is
/// wrong, this scans the text: it follows `[table]` and `[[array]]` headers and finds `key =`.
/// Best effort: keys written as dotted keys or inside inline tables give no line.
package struct SourceLocator {
    private let lines: [Substring]

    package init(text: String) {
        // TOML's newline is LF or CRLF; "\r\n" is one Character, so splitting at "\n" alone would
        // see a CRLF file as one line.
        lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }

    /// The 1-based line of `key` inside the table `table` (e.g. `["socket"]`, or `["reader"]`
    /// with `index` for the n-th `[[reader]]`); with `key` nil, the line of the table's header.
    package func line(table: [String], index: Int? = nil, key: String?) -> Int? {
        let wanted = table.joined(separator: ".")
        var current = ""
        var occurrence = -1
        var inWanted = table.isEmpty
        for (number, raw) in lines.enumerated() {
            let text = raw.trimmingSpaces()
            if text.hasPrefix("[") {
                let isArray = text.hasPrefix("[[")
                let name = text.drop { $0 == "[" }.prefix { $0 != "]" }.trimmingSpaces()
                current = String(name)
                if current == wanted {
                    occurrence += isArray ? 1 : 0
                    inWanted = index == nil || occurrence == index
                    if key == nil && inWanted { return number + 1 }
                } else {
                    inWanted = false
                }
                continue
            }
            guard inWanted, let key else { continue }
            if text.hasPrefix(key) {
                let rest = text.dropFirst(key.count).trimmingSpaces()
                if rest.hasPrefix("=") { return number + 1 }
            }
        }
        return nil
    }
}

extension StringProtocol {
    fileprivate func trimmingSpaces() -> Substring {
        let trimmed = self.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
        var end = trimmed.endIndex
        while end > trimmed.startIndex {
            let before = trimmed.index(before: end)
            guard trimmed[before] == " " || trimmed[before] == "\t" || trimmed[before] == "\r" else { break }
            end = before
        }
        return Substring(trimmed[trimmed.startIndex..<end])
    }
}
