/// A command APDU (ISO/IEC 7816-4 §5.1): header, optional data (Lc), optional expected length (Le).
///
/// ```
/// case 1   CLA INS P1 P2
/// case 2S  CLA INS P1 P2 Le            case 2E  CLA INS P1 P2 00 Le1 Le2
/// case 3S  CLA INS P1 P2 Lc Data       case 3E  CLA INS P1 P2 00 Lc1 Lc2 Data
/// case 4S  CLA INS P1 P2 Lc Data Le    case 4E  CLA INS P1 P2 00 Lc1 Lc2 Data Le1 Le2
/// ```
/// Short Le `00` means 256; extended Le `0000` means 65 536.
public struct CommandAPDU: Hashable, Sendable, CustomStringConvertible {
    /// pcsc-lite's `MAX_BUFFER_SIZE_EXTENDED`: the longest APDU it carries.
    public static let maximumLength = 65_548

    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    /// The command data (Nc bytes, at most 65 535); empty for cases 1 and 2.
    public var data: [UInt8]
    /// Expected response length Ne (1...65 536), or `nil` when no data is expected.
    public var le: Int?

    /// Creates a command.
    public init(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], le: Int? = nil) {
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.le = le
    }

    /// SELECT by DF name (`00 A4 04 00 Lc AID 00`), first or only occurrence, FCI wanted.
    public static func select(aid: AID) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: aid.bytes, le: 256)
    }

    /// GET RESPONSE (`00 C0 00 00 Le`) for the `length` bytes a `61xx` announced (`00` = 256).
    public static func getResponse(length: UInt8) -> CommandAPDU {
        CommandAPDU(cla: 0x00, ins: 0xC0, p1: 0x00, p2: 0x00, le: length == 0 ? 256 : Int(length))
    }

    /// Whether the command needs the extended length form.
    public var isExtended: Bool { data.count > 255 || (le ?? 0) > 256 }

    /// The encoded bytes (short form when possible).
    ///
    /// Data over 65 535 bytes or an Le outside 1...65 536 has no encoding: that is a programming
    /// error and stops the process rather than sending the card a different command.
    /// ``init(bytes:)`` and the static factories only make encodable commands.
    public var bytes: [UInt8] {
        precondition(data.count <= 65_535, "CommandAPDU data of \(data.count) bytes is over the 65535-byte maximum")
        precondition(le.map { (1...65_536).contains($0) } ?? true, "CommandAPDU Le \(le ?? 0) is outside 1...65536")
        var out: [UInt8] = [cla, ins, p1, p2]
        let extended = isExtended
        if !data.isEmpty {
            if extended {
                out += [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
            } else {
                out.append(UInt8(data.count))
            }
            out += data
        }
        if let le {
            if extended {
                if data.isEmpty { out.append(0x00) }
                let value = le == 65_536 ? 0 : le
                out += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            } else {
                out.append(le == 256 ? 0x00 : UInt8(le))
            }
        }
        return out
    }

    /// Parses an encoded command (cases 1, 2S, 3S, 4S, 2E, 3E, 4E).
    public init(bytes: [UInt8]) throws(APDUError) {
        guard bytes.count >= 4 else { throw .commandTooShort(length: bytes.count) }
        guard bytes.count <= Self.maximumLength else { throw .tooLong(length: bytes.count) }
        self.init(cla: bytes[0], ins: bytes[1], p1: bytes[2], p2: bytes[3])
        let body = Array(bytes[4...])
        switch body.count {
        case 0:
            return
        case 1:
            le = body[0] == 0 ? 256 : Int(body[0])
            return
        default:
            break
        }
        if body[0] != 0 {
            let lc = Int(body[0])
            if body.count == 1 + lc {
                data = Array(body[1...])
            } else if body.count == 2 + lc {
                data = Array(body[1...lc])
                le = body[1 + lc] == 0 ? 256 : Int(body[1 + lc])
            } else {
                throw .inconsistentLength("Lc=\(lc) but \(body.count - 1) bytes follow")
            }
            return
        }
        // Extended: body[0] == 00, then at least two more length bytes.
        guard body.count >= 3 else {
            throw .inconsistentLength("extended length needs 3 bytes after the header, got \(body.count)")
        }
        if body.count == 3 {
            let value = Int(body[1]) << 8 | Int(body[2])
            le = value == 0 ? 65_536 : value
            return
        }
        let lc = Int(body[1]) << 8 | Int(body[2])
        guard lc > 0 else { throw .inconsistentLength("extended Lc of 0") }
        if body.count == 3 + lc {
            data = Array(body[3...])
        } else if body.count == 5 + lc {
            data = Array(body[3..<(3 + lc)])
            let value = Int(body[3 + lc]) << 8 | Int(body[4 + lc])
            le = value == 0 ? 65_536 : value
        } else {
            throw .inconsistentLength("extended Lc=\(lc) but \(body.count - 3) bytes follow")
        }
    }

    public var description: String { bytes.hexString }
}
