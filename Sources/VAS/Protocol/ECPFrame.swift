import ISO7816
import Wallets

/// An Apple Enhanced Contactless Polling frame, as a reader sends it between polls
/// (docs/vas-protocol.md §7): `6A`, a version, a payload; the chip appends CRC_A.
///
/// A version 1 frame's payload is a 3-byte terminal capabilities id. For VAS (VASUP-A) it is
/// `00 00 0M`, where M is the same mode as in `9F26` byte 4 (`03` is payment only). Other frames
/// (version 2 transit or access terminals) are sent as given.
public struct ECPFrame: Hashable, Sendable, CustomStringConvertible {
    /// The frame without its CRC.
    public let bytes: [UInt8]

    /// The VASUP-A frame for `mode`: `6A 01 00 00 0M`.
    public init(mode: PassMode) {
        bytes = [0x6A, 0x01, 0x00, 0x00, mode.bits]
    }

    /// A frame given as bytes (without CRC), checked for the ECP header.
    /// - Throws: ``ECPFrameError`` when it does not start with `6A`, has no known version, or is
    ///   not 5 (version 1) or 4 to 19 (version 2) bytes long.
    public init(bytes: [UInt8]) throws(ECPFrameError) {
        guard bytes.first == 0x6A else { throw .notECP }
        guard bytes.count >= 2, bytes[1] == 0x01 || bytes[1] == 0x02 else { throw .unknownVersion }
        if bytes[1] == 0x01, bytes.count != 5 { throw .badLength(bytes.count) }
        // Version 2: config byte (low nibble: data length), type, subtype, then that much data.
        if bytes[1] == 0x02 {
            guard bytes.count >= 5, bytes.count == 5 + Int(bytes[2] & 0x0F) else { throw .badLength(bytes.count) }
        }
        self.bytes = bytes
    }

    /// What a VASUP-A frame asks the phone for: a ``PassMode`` (`.some(mode)`), payment only
    /// (`.some(nil)`), or `nil` when the frame is not a VAS frame at all.
    public var vasRequest: PassMode?? {
        guard bytes.count == 5, bytes[1] == 0x01, bytes[2] == 0x00, bytes[3] == 0x00 else { return nil }
        if bytes[4] == 0x03 { return .some(nil) }
        guard let mode = PassMode.allCases.first(where: { $0.bits == bytes[4] }) else { return nil }
        return .some(mode)
    }

    /// The frame with its CRC_A, as it goes on the air.
    public var withCRC: [UInt8] { bytes + Self.crcA(bytes) }

    /// ISO/IEC 14443-3 CRC_A (preset `6363`, reflected polynomial `8408`), low byte first.
    public static func crcA(_ data: [UInt8]) -> [UInt8] {
        var crc: UInt16 = 0x6363
        for byte in data {
            var b = byte ^ UInt8(truncatingIfNeeded: crc)
            b ^= b << 4
            let wide = UInt16(b)
            crc = (crc >> 8) ^ (wide << 8) ^ (wide << 3) ^ (wide >> 4)
        }
        return [UInt8(truncatingIfNeeded: crc), UInt8(truncatingIfNeeded: crc >> 8)]
    }

    public var description: String { bytes.hexString }
}

/// Why bytes are not an ECP frame.
public enum ECPFrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// It does not start with `6A`.
    case notECP
    /// Its version byte is not `01` or `02`.
    case unknownVersion
    /// Its length does not fit its version.
    case badLength(Int)

    public var description: String {
        switch self {
        case .notECP: return "an ECP frame starts with 6A"
        case .unknownVersion: return "an ECP frame's second byte is its version, 01 or 02"
        case .badLength(let count): return "\(count) bytes do not fit the frame's version (version 1: 5 bytes; version 2: 5 plus the data length in the config byte's low 4 bits)"
        }
    }
}
