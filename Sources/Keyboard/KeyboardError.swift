/// Why `passtap keyboard` did not type a read, or cannot start: one sentence for a person each.
public struct KeyboardError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, with what to do where there is something.
    public var message: String

    /// An error saying `message`.
    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
