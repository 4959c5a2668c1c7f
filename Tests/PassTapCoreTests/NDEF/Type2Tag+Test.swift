import PassTapCore
import PassTapTestSupport

/// Type 2 tag images for the tests: an NTAG215's 135 pages, UID and lock bytes in pages 0–2, the
/// capability container in page 3, `data` from page 4 on, zeros after it.
enum Type2Tag {
    /// One URI record, `https://example.com` (prefix 04): `D1 01 0C 55 04 "example.com"`.
    static let uriMessage: [UInt8] = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)

    /// An NTAG215 image (CC `E1 10 3E 00`: 496 data bytes) holding `data` from byte 16.
    static func ntag215(data: [UInt8], sizeByte: UInt8 = 0x3E, pages: Int = 135) -> [UInt8] {
        var image = [UInt8](repeating: 0, count: pages * 4)
        image.replaceSubrange(0..<12, with: [0x04, 0xA2, 0x3C, 0x1A, 0x7F, 0x2D, 0x80, 0x00, 0x00, 0x48, 0x00, 0x00])
        image.replaceSubrange(12..<16, with: [0xE1, 0x10, sizeByte, 0x00])
        image.replaceSubrange(16..<(16 + data.count), with: data)
        return image
    }

    /// An NDEF TLV around `message` (1- or 3-byte length), then the terminator.
    static func ndefTLV(_ message: [UInt8]) -> [UInt8] {
        let length: [UInt8] = message.count < 255 ? [UInt8(message.count)] : [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
        return [0x03] + length + message + [0xFE]
    }

    /// The tag's result through the session engine, and the pages it read.
    static func read(_ memory: ScriptedTagMemory) -> NDEFReadResult {
        SessionEngine().readType2(memory, budget: nil)
    }
}
