/// A reader's stable identifier on the socket: `pcsc:<reader name>` (later `nfc:<connstring>`).
///
/// Methods take the exact id; the CLI may resolve a unique substring of it.
public struct ReaderID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// The full id, backend prefix included.
    public let rawValue: String

    /// Wraps an id as received on the socket.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// The id of a PC/SC reader, from the name pcsc-lite gives it.
    public static func pcsc(_ readerName: String) -> ReaderID { ReaderID("pcsc:" + readerName) }

    public var description: String { rawValue }

    public static func < (lhs: ReaderID, rhs: ReaderID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
