/// Why an exchange with a card failed below the APDU level: the `error` of a `read.result`
/// (`{"code", "message"}`) and the `data.code` of a `card.transmit` error.
///
/// Backends turn their library's codes into one of these; ``code`` is a stable, documented
/// contract. Two errors are equal when their codes are: the message is for a person and may vary.
public struct CardTransportError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The stable snake_case codes of transport failures (documented in `docs/socket-api.md`).
    public enum Code: String, Sendable, Codable, CaseIterable {
        /// The card left the field during the exchange. Tap again.
        case cardRemoved = "card_removed"
        /// The reader went away (unplugged, or its reader stack stopped). The daemon reconnects by itself.
        case readerUnavailable = "reader_unavailable"
        /// The card did not answer in time.
        case timeout = "timeout"
        /// The card kept asking for more round trips (`61xx`/`6Cxx`) than the cap allows.
        case tooManyRoundTrips = "too_many_round_trips"
        /// The card's answer, chained parts added up, exceeded the size cap.
        case responseTooLong = "response_too_long"
        /// The command is longer than the reader can carry in one exchange.
        case commandTooLong = "command_too_long"
        /// The card's answer was shorter than the two status bytes.
        case malformedResponse = "malformed_response"
        /// Any other failure of the reader stack; `message` carries the library's words.
        case transportFailed = "transport_failed"
        /// The tap's session went over its time budget (`[session] budget_ms`) and ended between
        /// two exchanges. A `read.result` error only: `card.transmit` has no budget.
        case sessionTimeout = "session_timeout"
    }

    /// What went wrong, as a stable code.
    public var code: Code
    /// A sentence for a person: what happened and, where useful, what to do.
    public var message: String

    /// Creates an error with its code and a human message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    public static func == (lhs: CardTransportError, rhs: CardTransportError) -> Bool { lhs.code == rhs.code }

    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension CardTransportError {
    private enum CodingKeys: String, CodingKey { case code, message }

    /// Reads `{"code", "message"}`. A code this build does not know (a newer daemon's) is read as
    /// `transport_failed`, its own name kept at the head of the message: clients ignore what they
    /// do not know rather than fail the whole event.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(String.self, forKey: .code)
        let message = try container.decode(String.self, forKey: .message)
        if let code = Code(rawValue: name) {
            self.init(code, message)
        } else {
            self.init(.transportFailed, "\(name): \(message)")
        }
    }
}

/// The top-level `error` of a `read.result`: the transport failure that cut the session short.
/// Expected outcomes (a SELECT answered `6A82`) are not errors: they are in `attempts`.
public typealias ReadError = CardTransportError
