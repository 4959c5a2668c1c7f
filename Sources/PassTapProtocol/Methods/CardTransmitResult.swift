/// The result of `card.transmit`: `{"response": "6F1A...", "sw": "9000", "meaning": "..."}`.
public struct CardTransmitResult: Sendable, Hashable, Codable {
    /// The response data without the status word, upper-case hex (`""` when none).
    public var response: String
    /// The status word, upper-case hex (`9000`).
    public var sw: String
    /// What ISO/IEC 7816-4 says the status word means.
    public var meaning: String

    /// Creates the answer.
    public init(response: String, sw: String, meaning: String) {
        self.response = response
        self.sw = sw
        self.meaning = meaning
    }
}
