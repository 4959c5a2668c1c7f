import Crypto

/// An Apple Wallet pass type identifier such as `pass.com.example.loyalty`, with its SHA-256,
/// which GET VAS DATA sends in `9F25` and the cryptography binds in (vas-protocol.md §3.2, §5.3).
public struct PassTypeIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The longest identifier accepted (Apple sets no published limit; this bounds config input).
    public static let maximumLength = 255

    /// The identifier text.
    public let value: String
    /// SHA-256 of the identifier's ASCII bytes (Apple's "merchant ID").
    public let sha256: [UInt8]

    /// Accepts 1...255 printable ASCII characters.
    public init(_ value: String) throws(VASCommandError) {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumLength,
            bytes.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw VASCommandError(
                .invalidPassTypeIdentifier,
                "pass type id of \(bytes.count) bytes: use 1...\(Self.maximumLength) printable ASCII characters without spaces, as in pass.json's passTypeIdentifier"
            )
        }
        self.value = value
        self.sha256 = Array(SHA256.hash(data: bytes))
    }

    public var description: String { value }
}
