/// Why bytes are not valid BER-TLV. Offsets count from the start of the outermost input.
public enum TLVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The input ended inside a tag, a length or a value.
    case truncated(offset: Int, what: String)
    /// Length byte `80` (indefinite form) is not allowed in ISO 7816 BER-TLV.
    case indefiniteLength(offset: Int)
    /// A length form longer than the parser accepts (over 4 length bytes).
    case unsupportedLengthForm(offset: Int, byte: UInt8)
    /// A tag longer than 4 bytes.
    case tagTooLong(offset: Int)
    /// Constructed objects nested deeper than the limit.
    case tooDeep(offset: Int, limit: Int)
    /// More objects than the limit.
    case tooManyNodes(limit: Int)

    public var description: String {
        switch self {
        case .truncated(let offset, let what): return "TLV truncated at offset \(offset): \(what) runs past the end"
        case .indefiniteLength(let offset): return "TLV indefinite length (80) at offset \(offset) is not allowed"
        case .unsupportedLengthForm(let offset, let byte): return "TLV length form \([byte].hexString) at offset \(offset) is not supported"
        case .tagTooLong(let offset): return "TLV tag at offset \(offset) is longer than 4 bytes"
        case .tooDeep(let offset, let limit): return "TLV nested deeper than \(limit) levels at offset \(offset)"
        case .tooManyNodes(let limit): return "TLV holds more than \(limit) objects"
        }
    }
}
