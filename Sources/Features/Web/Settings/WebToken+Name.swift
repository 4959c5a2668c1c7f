public import PassTapCore

extension Configuration.WebToken {
    /// The longest `name` a token may have.
    public static let maximumNameLength = 64

    /// What a token `name` must look like, for error messages.
    public static let nameExpectation =
        "a name of 1 to \(maximumNameLength) letters, digits, '-', '_' and '.', starting with a letter or digit (it appears in logs and metric labels)"

    /// Whether `name` is a plain identifier: 1 to ``maximumNameLength`` ASCII letters, digits,
    /// `-`, `_` and `.`, the first a letter or digit. It names the token in logs, audit lines and
    /// metric labels, and `passtap web-token` names the file after it, so it may hold nothing else.
    public static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, isAlphanumeric(first), name.utf8.count <= maximumNameLength else { return false }
        return name.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }
}
