import Synchronization

/// The tree of the last TOML text TOMLKit parsed, so a reload of an unchanged file does not parse
/// it again: TOMLKit 0.6.0 leaks part of every document it parses (LebJe/TOMLKit issue #26; see
/// `ConfigLoader`). Validation (the schema, the key files) still runs in full on every load: only
/// the text-to-tree step is skipped, and only for byte-identical text.
package final class ParsedTOMLCache: Sendable {
    /// The daemon's one cache (one config file).
    package static let shared = ParsedTOMLCache()

    private let last = Mutex<(text: String, entries: [(key: String, value: ConfigNode)])?>(nil)

    /// The tree of `text`: the cached one if `text` is the last text parsed, else `parse()`'s
    /// (which is then cached; a parse that throws leaves the cache as it was).
    package func entries(
        of text: String, parse: () throws(ConfigurationError) -> [(key: String, value: ConfigNode)]
    ) throws(ConfigurationError) -> [(key: String, value: ConfigNode)] {
        if let hit = last.withLock({ $0?.text == text ? $0?.entries : nil }) { return hit }
        let entries = try parse()
        last.withLock { $0 = (text, entries) }
        return entries
    }
}
