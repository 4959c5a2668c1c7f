/// Why a hex string could not be turned into bytes.
public enum HexError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The string has an odd number of hex digits.
    case oddLength(digits: Int)
    /// A character that is neither a hex digit nor a space was found at this offset.
    case invalidCharacter(Character, offset: Int)

    public var description: String {
        switch self {
        case .oddLength(let digits):
            return "hex has an odd number of digits (\(digits)): every byte needs two"
        case .invalidCharacter(let character, let offset):
            return "'\(character)' at offset \(offset) is not a hex digit (0-9, A-F)"
        }
    }
}

extension Array where Element == UInt8 {
    /// Parses hex in any case; spaces and colons between digits are ignored.
    public init(hex: String) throws(HexError) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8? = nil
        var digits = 0
        for (offset, character) in hex.enumerated() {
            if character == " " || character == ":" { continue }
            guard let ascii = character.asciiValue, let nibble = Self.nibble(ascii) else {
                throw .invalidCharacter(character, offset: offset)
            }
            digits += 1
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        guard high == nil else { throw .oddLength(digits: digits) }
        self = bytes
    }

    /// The bytes as upper-case hex with no separators, as PassTap publishes them.
    public var hexString: String {
        let table: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(table[Int(byte >> 4)])
            out.append(table[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ ascii: UInt8) -> UInt8? {
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return ascii - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return ascii - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return ascii - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
