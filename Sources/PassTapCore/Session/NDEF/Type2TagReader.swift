import ISO7816

/// Reads the NDEF message of a Type 2 tag (MIFARE Ultralight, NTAG) over its page memory (NFC
/// Forum Type 2 Tag Technical Specification, "NDEF Management" and "TLV blocks").
///
/// Page 3 is the capability container; the data area starts at page 4 (byte 16) and is as long
/// as the container says. It holds TLV blocks, walked from its first byte:
///
/// | T  | name | L | what is done |
/// |----|------|---|--------------|
/// | 00 | NULL | none | skipped |
/// | 01 | Lock Control | 3 | its reserved bytes are skipped from then on |
/// | 02 | Memory Control | 3 | its reserved bytes are skipped from then on |
/// | 03 | NDEF Message | 1 byte, or `FF` and 2 bytes | the message: read, the walk ends |
/// | FD | Proprietary | as NDEF | skipped |
/// | FE | Terminator | none | the walk ends: no NDEF |
///
/// The walk never reads past the data area, sees at most ``maximumTLVs`` blocks other than NULL,
/// and reads only the pages that hold the blocks up to the message's end.
struct Type2TagReader {
    /// The most non-NULL TLV blocks walked before the NDEF block (a real tag has one or two).
    static let maximumTLVs = 16
    /// The most Lock and Memory Control blocks taken (a real tag has at most two).
    static let maximumControls = 8
    /// The data area's first byte (page 4).
    static let dataAreaStart = 16

    private var pages: Type2PageReader
    /// Reserved byte ranges (from Lock and Memory Control blocks) inside the data area.
    private var reserved: [Range<Int>] = []
    /// One past the data area's last byte (and never past what a page address reaches).
    private var end = 0

    init(memory: any TagMemory, budget: SessionBudget) {
        pages = Type2PageReader(memory: memory, budget: budget)
    }

    /// How many page reads were sent.
    var reads: Int { pages.reads }

    /// The bytes of the tag's NDEF message (its first NDEF block).
    mutating func readMessage() throws(NDEFTagFailure) -> [UInt8] {
        let container = try Type2CapabilityContainer(page3: pages.page(3))
        end = min(Self.dataAreaStart + container.dataAreaBytes, Type2PageReader.addressableBytes)
        var cursor = Self.dataAreaStart
        var blocks = 0
        while true {
            cursor = skipReserved(cursor)
            guard cursor < end else {
                throw .problem("no NDEF TLV in the data area's \(container.dataAreaBytes) bytes (from the capability container)")
            }
            let tag = try pages.byte(at: cursor)
            cursor += 1
            switch tag {
            case 0x00:
                continue
            case 0xFE:
                throw .problem("no NDEF TLV: the terminator TLV came first")
            default:
                break
            }
            blocks += 1
            guard blocks <= Self.maximumTLVs else {
                throw .problem("no NDEF TLV among the first \(Self.maximumTLVs) TLV blocks")
            }
            let length = try readLength(at: &cursor, of: tag)
            switch tag {
            case 0x03:
                guard length > 0 else { throw .problem("the NDEF TLV is empty: the tag holds no message") }
                return try readValue(at: &cursor, length: length, of: tag)
            case 0x01, 0x02:
                let value = try readValue(at: &cursor, length: length, of: tag)
                try addControl(value, lock: tag == 0x01)
            default:
                // Proprietary (FD) and unknown blocks are skipped by their length.
                _ = try readValue(at: &cursor, length: length, of: tag, keep: false)
            }
        }
    }

    /// A TLV length: one byte, or `FF` then two bytes (big-endian) for 255 and up.
    private mutating func readLength(at cursor: inout Int, of tag: UInt8) throws(NDEFTagFailure) -> Int {
        let first = try nextByte(at: &cursor, of: tag)
        guard first == 0xFF else { return Int(first) }
        let high = try nextByte(at: &cursor, of: tag)
        let low = try nextByte(at: &cursor, of: tag)
        return Int(high) << 8 | Int(low)
    }

    /// `length` bytes of a block's value, reserved bytes skipped; a value that would run past the
    /// data area's end is a problem, found before any page past the end is read.
    private mutating func readValue(at cursor: inout Int, length: Int, of tag: UInt8, keep: Bool = true) throws(NDEFTagFailure) -> [UInt8] {
        guard length <= available(from: cursor) else {
            throw .problem(
                "the \(Self.name(of: tag)) TLV at byte \(cursor) says \(length) bytes, past the end of the data area (\(end - Self.dataAreaStart) bytes from the capability container)"
            )
        }
        var value: [UInt8] = []
        if keep { value.reserveCapacity(length) }
        for _ in 0..<length {
            let byte = try nextByte(at: &cursor, of: tag)
            if keep { value.append(byte) }
        }
        return value
    }

    /// The next data byte at or after `cursor`, reserved bytes skipped.
    private mutating func nextByte(at cursor: inout Int, of tag: UInt8) throws(NDEFTagFailure) -> UInt8 {
        cursor = skipReserved(cursor)
        guard cursor < end else {
            throw .problem("the \(Self.name(of: tag)) TLV runs past the end of the data area (\(end - Self.dataAreaStart) bytes from the capability container)")
        }
        let byte = try pages.byte(at: cursor)
        cursor += 1
        return byte
    }

    /// How many data bytes are left from `cursor` to the end, reserved ones not counted.
    private func available(from cursor: Int) -> Int {
        var count = max(0, end - cursor)
        for range in reserved {
            count -= max(0, min(range.upperBound, end) - max(range.lowerBound, cursor))
        }
        return count
    }

    /// `cursor`, or the first byte after the reserved range it falls in.
    private func skipReserved(_ cursor: Int) -> Int {
        var at = cursor
        while let range = reserved.first(where: { $0.contains(at) }) { at = range.upperBound }
        return at
    }

    /// A Lock Control or Memory Control block's reserved area (the byte address is the page
    /// address × 2^(bytes per page) + the byte offset; a lock area is its bit count in bytes,
    /// rounded up, a memory area its byte count; a size of 0 means 256).
    private mutating func addControl(_ value: [UInt8], lock: Bool) throws(NDEFTagFailure) {
        let name = lock ? "Lock Control" : "Memory Control"
        guard value.count == 3 else { throw .problem("the \(name) TLV is \(value.count) bytes long, not 3") }
        guard reserved.count < Self.maximumControls else {
            throw .problem("more than \(Self.maximumControls) Lock and Memory Control TLVs")
        }
        let pageAddress = Int(value[0] >> 4)
        let byteOffset = Int(value[0] & 0x0F)
        let bytesPerPage = 1 << Int(value[2] & 0x0F)
        let size = value[1] == 0 ? 256 : Int(value[1])
        let start = pageAddress * bytesPerPage + byteOffset
        let count = lock ? (size + 7) / 8 : size
        reserved.append(start..<(start + count))
    }

    private static func name(of tag: UInt8) -> String {
        switch tag {
        case 0x01: "Lock Control"
        case 0x02: "Memory Control"
        case 0x03: "NDEF"
        case 0xFD: "proprietary"
        default: "unknown (\([tag].hexString))"
        }
    }
}
