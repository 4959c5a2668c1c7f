import ISO7816

/// What a config error may show of a URL: its scheme, host and port, never its path, query,
/// fragment or user information.
///
/// A webhook URL often carries its secret in the path or the query (`/services/T0/B0/XXXX`,
/// `?token=...`), and a rejected reload's message goes to every `observe` subscriber as
/// `config.rejected` and to the journal. So an error names only what locates the endpoint:
///
/// ```
/// https://user:pw@hooks.example.com:8443/path?query#fragment
///  -> "https://(user information)@hooks.example.com:8443" (its path and query are not shown)
/// ```
///
/// Plain text, not `URL`: it must work on text that does not parse as a URL, too. The authority
/// ends at the first `/`, `?` or `#` after `scheme://` (or from the start, with no scheme).
package enum URLQuote {
    /// `text` cut to `scheme://host[:port]`, quoted (``UntrustedText/quoted(_:)``), with a note
    /// when a path, query or fragment was left out; user information becomes `(user information)`.
    package static func origin(of text: String) -> String {
        let schemeEnd = text.firstRange(of: "://")
        let authorityStart = schemeEnd?.upperBound ?? text.startIndex
        let authorityEnd = text[authorityStart...].firstIndex { "/?#".contains($0) } ?? text.endIndex
        var authority = text[authorityStart..<authorityEnd]
        var shown = String(text[..<authorityStart])
        if let at = authority.lastIndex(of: "@") {
            shown += "(user information)@"
            authority = authority[authority.index(after: at)...]
        }
        shown += authority
        let cut = authorityEnd < text.endIndex
        return UntrustedText.quoted(shown) + (cut ? " (its path and query are not shown)" : "")
    }
}
