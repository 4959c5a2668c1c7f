/// What one GET VAS DATA asks for: a pass type identifier (full VAS) or none (URL only), with an
/// optional sign-up URL and VAS filter (vas-protocol.md §3.2).
///
/// Built once at configuration load, so a bad URL or filter is refused there, not mid-tap.
public struct VASMerchantRequest: Hashable, Sendable {
    /// Apple Core NFC's limit: "maximum length of the URL is 64 characters, including the schema".
    public static let maximumURLLength = 64
    /// The only filter seen to work: `01 00 00 00 00`.
    public static let defaultFilter: [UInt8] = [0x01, 0x00, 0x00, 0x00, 0x00]

    /// The pass wanted; `nil` asks in URL-only mode (P2 = `00`).
    public let passTypeIdentifier: PassTypeIdentifier?
    /// The merchant sign-up URL sent in `9F29`, ASCII.
    public let url: String?
    /// The `9F2B` VAS filter: 5 bytes starting `01`.
    public let filter: [UInt8]?

    /// Checks the URL (printable ASCII, at most 64 characters) and the filter (5 bytes, first `01`).
    public init(passTypeIdentifier: PassTypeIdentifier?, url: String? = nil, filter: [UInt8]? = nil) throws(VASCommandError) {
        if let url {
            let bytes = Array(url.utf8)
            guard bytes.count <= Self.maximumURLLength else {
                throw VASCommandError(
                    .invalidURL,
                    "sign-up URL is \(bytes.count) characters; the phone accepts at most \(Self.maximumURLLength) including the scheme: shorten it"
                )
            }
            guard !bytes.isEmpty, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw VASCommandError(.invalidURL, "sign-up URL must be non-empty printable ASCII without spaces (percent-encode the rest)")
            }
        }
        if let filter {
            guard filter.count == 5, filter[0] == 0x01 else {
                throw VASCommandError(
                    .invalidFilter,
                    "VAS filter of \(filter.count) bytes: it must be 5 bytes starting 01 (use 0100000000); phones answer 6A80/6A83/6700 otherwise"
                )
            }
        }
        self.passTypeIdentifier = passTypeIdentifier
        self.url = url
        self.filter = filter
    }

    /// Full VAS (P2 = `01`) when a pass type identifier is set.
    public var isFullVAS: Bool { passTypeIdentifier != nil }
}
