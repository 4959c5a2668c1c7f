/// A reader as `readers.list` and `status` report it.
public struct ReaderInfo: Sendable, Hashable, Codable {
    /// Where a reader stands right now.
    public enum State: String, Sendable, Codable, Hashable {
        /// Ready, no card in the field.
        case empty
        /// A card is in the field.
        case present
        /// Known but not usable (pcscd down, reader in use elsewhere, driver error).
        case unavailable
    }

    /// The stable id (`pcsc:<name>`).
    public var id: ReaderID
    /// The name the reader stack gives it.
    public var name: String
    /// The backend that drives it: `pcsc` (later `nfc`).
    public var backend: String
    /// Its state now.
    public var state: State

    /// Creates a reader description.
    public init(id: ReaderID, name: String, backend: String, state: State) {
        self.id = id
        self.name = name
        self.backend = backend
        self.state = state
    }
}
