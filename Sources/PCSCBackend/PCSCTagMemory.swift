import ISO7816
import PassTapCore

/// A Type 2 tag's pages through a PC/SC reader: PC/SC part 3 READ BINARY, `FF B0 00 <page> 10`,
/// sent over the card's connection (and so through the pcsc-lite call chokepoint) on the
/// reader's thread. An ACR122U answers with the tag's READ, 16 bytes; some readers answer with
/// the one page, 4 bytes: both are taken.
///
/// Readers that build the answer themselves (SCM/Identiv, Gemalto) may refuse a 16-byte read
/// whose four pages run past the tag's last page; such a refusal (``refusesLength(_:)``) is
/// retried once for the one page, `FF B0 00 <page> 04`.
final class PCSCTagMemory: TagMemory {
    /// The bytes asked for: four pages, what the tag's READ answers.
    static let requestedBytes: UInt8 = 0x10
    /// The bytes asked for again when a reader refuses ``requestedBytes``: the one page.
    static let pageBytes: UInt8 = 0x04
    /// The answer sizes taken: the four pages asked for, or the one page some readers give.
    static let acceptedBytes: Set<Int> = [16, 4]

    private let connection: PCSCCardConnection

    init(connection: PCSCCardConnection) {
        self.connection = connection
    }

    /// `FF B0 00 page Le` (Le `10` unless told otherwise).
    static func readBinary(page: UInt8, length: UInt8 = requestedBytes) -> [UInt8] { [0xFF, 0xB0, 0x00, page, length] }

    /// Whether `status` refuses READ BINARY's length rather than the page, as the PC/SC part 3
    /// readers' manuals list it (SCM SCL3711 and Identiv SDI011 reference manuals, "READ_BINARY"
    /// status words): `6700` length incorrect, `6Cxx` wrong Le, `6282` end of data reached before
    /// Le bytes, `6A82` addressed blocks do not exist, `6B00` wrong P1 P2 (the range, not the
    /// page). `6300`, an ACR122U's "the tag NAKed", is not: that reader passes the tag's own
    /// 16-byte READ, so the page itself was refused.
    static func refusesLength(_ status: [UInt8]) -> Bool {
        guard status.count == 2 else { return false }
        switch (status[0], status[1]) {
        case (0x67, 0x00), (0x6C, _), (0x62, 0x82), (0x6A, 0x82), (0x6B, 0x00): return true
        default: return false
        }
    }

    func read(page: UInt8) throws(CardTransportError) -> [UInt8] {
        var length = Self.requestedBytes
        var (data, status) = try readBinary(page: page, length: length)
        if Self.refusesLength(status) {
            // The last pages of some readers: ask for the one page.
            length = Self.pageBytes
            (data, status) = try readBinary(page: page, length: length)
        }
        guard status == [0x90, 0x00] else {
            let asked = length == Self.requestedBytes ? "" : " (also for \(length) bytes)"
            throw CardTransportError(
                .transportFailed,
                "the reader refused READ BINARY of page \(page)\(asked) (SW \(status.hexString)): the page is past the tag's memory, or the tag left")
        }
        guard Self.acceptedBytes.contains(data.count), data.count <= Int(length) else {
            throw CardTransportError(.malformedResponse, "the reader gave \(data.count) bytes for page \(page); \(length == Self.requestedBytes ? "16 or 4" : "4") expected")
        }
        return data
    }

    /// One READ BINARY: the answer's data and its status word.
    private func readBinary(page: UInt8, length: UInt8) throws(CardTransportError) -> (data: [UInt8], status: [UInt8]) {
        let answer = try connection.transmit(Self.readBinary(page: page, length: length))
        guard answer.count >= 2 else {
            throw CardTransportError(.malformedResponse, "the reader answered READ BINARY of page \(page) with \(answer.count) bytes, no status word")
        }
        return (Array(answer.dropLast(2)), Array(answer.suffix(2)))
    }
}

@available(*, unavailable)
extension PCSCTagMemory: Sendable {}
