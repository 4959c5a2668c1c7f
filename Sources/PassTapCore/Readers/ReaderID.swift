/// A reader's stable identifier: the backend that drives it and the name that backend gives it.
///
/// On the wire it is one string, `<backend>:<name>` (`pcsc:ACS ACR122U 00 00`,
/// `nfc:pn532_uart:/dev/ttyUSB0`). Methods take the exact id; the CLI may resolve a unique
/// substring of it.
public struct ReaderID: Hashable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// A backend's short name, as it prefixes reader ids and names backends in events.
    public struct Backend: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
        /// The short name (`pcsc`, `nfc`).
        public let rawValue: String

        /// Wraps a backend name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Readers driven through pcsc-lite (pcscd).
        public static let pcsc = Backend(rawValue: "pcsc")
        /// Readers driven through libnfc.
        public static let nfc = Backend(rawValue: "nfc")

        public var description: String { rawValue }

        public static func < (lhs: Backend, rhs: Backend) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The backend that drives the reader; empty for an id that named none (it matches no reader).
    public let backend: Backend
    /// The reader's name within its backend.
    public let name: String

    /// The id of reader `name` of `backend`.
    public init(backend: Backend, name: String) {
        self.backend = backend
        self.name = name
    }

    /// Parses the wire form `<backend>:<name>`. A string without `:` names no backend, so it
    /// matches no reader, and is kept as given for error messages.
    public init(_ wire: String) {
        if let colon = wire.firstIndex(of: ":") {
            self.init(backend: Backend(rawValue: String(wire[..<colon])), name: String(wire[wire.index(after: colon)...]))
        } else {
            self.init(backend: Backend(rawValue: ""), name: wire)
        }
    }

    /// The id of a PC/SC reader, from the name pcsc-lite gives it.
    public static func pcsc(_ readerName: String) -> ReaderID { ReaderID(backend: .pcsc, name: readerName) }

    /// The wire form.
    public var rawValue: String { backend.rawValue.isEmpty ? name : backend.rawValue + ":" + name }

    public var description: String { rawValue }

    public static func < (lhs: ReaderID, rhs: ReaderID) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
