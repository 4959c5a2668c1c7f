/// The top-level `error` of a `read.result`: a transport failure or a lost card.
///
/// Expected outcomes (a SELECT answered `6A82`) are not errors: they are in `attempts`.
public struct ReadError: Sendable, Hashable, Codable, Error {
    /// A stable snake_case code (`card_removed`, `reader_unavailable`, ... see `docs/socket-api.md`).
    public var code: String
    /// A sentence for a person.
    public var message: String

    /// Creates an error from its code and message.
    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    /// The `read.result` error for a failed exchange with the card.
    public init(_ error: CardTransportError) {
        self.init(code: error.code.rawValue, message: error.message)
    }
}
