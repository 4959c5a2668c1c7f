/// Bytes a card chose, made fit to publish as a short printable string.
///
/// A card decides the length and content of every label it sends (a wallet label, a PPSE
/// application label, a version). Published as is, 8 000 bytes of `01` become a 48 KB JSON string
/// of `\u0001` escapes. Here:
/// - printable ASCII (`20`–`7E`) up to `maxBytes` is kept as is;
/// - any other byte, and the backslash, is written `\xNN`, so the result is always printable ASCII
///   and says which bytes the card sent;
/// - past `maxBytes` the input is cut and marked with `...[N bytes]`, N being the length sent.
///
/// The result is at most `4 * maxBytes + 24` characters, whatever the input.
public enum CardText {
    /// The label as published: printable, escaped where it is not, cut and marked past `maxBytes`.
    public static func printable(_ bytes: [UInt8], maxBytes: Int) -> String {
        var text = ""
        text.reserveCapacity(min(bytes.count, maxBytes))
        for byte in bytes.prefix(maxBytes) {
            if (0x20...0x7E).contains(byte) && byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + [byte].hexString
            }
        }
        return bytes.count > maxBytes ? text + truncationMark(bytes.count) : text
    }

    /// Bytes as upper-case hex, the first `maxBytes` of them, marked `...[N bytes]` when cut.
    public static func hex(_ bytes: [UInt8], maxBytes: Int) -> String {
        let text = Array(bytes.prefix(maxBytes)).hexString
        return bytes.count > maxBytes ? text + truncationMark(bytes.count) : text
    }

    /// Whether `bytes` is published unchanged by ``printable(_:maxBytes:)``.
    public static func isPlain(_ bytes: [UInt8], maxBytes: Int) -> Bool {
        bytes.count <= maxBytes && bytes.allSatisfy { (0x20...0x7E).contains($0) && $0 != UInt8(ascii: "\\") }
    }

    /// The mark after a cut: how long the card's value really was.
    static func truncationMark(_ length: Int) -> String { "...[\(length) bytes]" }
}
