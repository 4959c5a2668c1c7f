import ISO7816
import PassTapCore

/// A Type 2 tag's pages through a PC/SC reader: PC/SC part 3 READ BINARY, `FF B0 00 <page> 10`,
/// sent over the card's connection (and so through the pcsc-lite call chokepoint) on the
/// reader's thread. An ACR122U answers with the tag's READ, 16 bytes; some readers answer with
/// the one page, 4 bytes: both are taken.
final class PCSCTagMemory: TagMemory {
    /// The bytes asked for: four pages, what the tag's READ answers.
    static let requestedBytes: UInt8 = 0x10
    /// The answer sizes taken: the four pages asked for, or the one page some readers give.
    static let acceptedBytes: Set<Int> = [16, 4]

    private let connection: PCSCCardConnection

    init(connection: PCSCCardConnection) {
        self.connection = connection
    }

    /// `FF B0 00 page 10`.
    static func readBinary(page: UInt8) -> [UInt8] { [0xFF, 0xB0, 0x00, page, requestedBytes] }

    func read(page: UInt8) throws(CardTransportError) -> [UInt8] {
        let answer = try connection.transmit(Self.readBinary(page: page))
        guard answer.count >= 2 else {
            throw CardTransportError(.malformedResponse, "the reader answered READ BINARY of page \(page) with \(answer.count) bytes, no status word")
        }
        let data = Array(answer.dropLast(2))
        let status = Array(answer.suffix(2))
        guard status == [0x90, 0x00] else {
            throw CardTransportError(
                .transportFailed,
                "the reader refused READ BINARY of page \(page) (SW \(status.hexString)): the page is past the tag's memory, or the tag left")
        }
        guard Self.acceptedBytes.contains(data.count) else {
            throw CardTransportError(.malformedResponse, "the reader gave \(data.count) bytes for page \(page); 16 or 4 expected")
        }
        return data
    }
}

@available(*, unavailable)
extension PCSCTagMemory: Sendable {}
