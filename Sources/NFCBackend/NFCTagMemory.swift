import PassTapCore

/// A Type 2 tag's pages through libnfc: the tag's READ command, `30 <page>`, with
/// `nfc_initiator_transceive_bytes` in easy framing (the PN53x's InDataExchange adds and checks
/// the CRC), on the reader's thread. The tag answers 16 bytes, four pages, rolling over to page 0
/// (the session's `Type2PageReader` tells a page read back as page 0 from data); a page past its
/// memory gets a NAK (libnfc: `NFC_EMFCAUTHFAIL` from a PN532).
///
/// Under the same rules as the ISO-DEP channel (``NFCChannel``): nothing is sent once passtapd
/// stops, a read after the session let the tag go selects it again first, and the read can be
/// aborted (`nfc_abort_command`) by a stop.
final class NFCTagMemory: TagMemory {
    /// READ's command code.
    static let readCommand: UInt8 = 0x30
    /// What READ answers: four pages.
    static let answerBytes = 16
    private weak var driver: NFCReaderDriver?
    private let device: NFCDevice
    private let polling: NFCPolling

    init(driver: NFCReaderDriver, device: NFCDevice, polling: NFCPolling) {
        self.driver = driver
        self.device = device
        self.polling = polling
    }

    func read(page: UInt8) throws(CardTransportError) -> [UInt8] {
        guard let driver else { throw CardTransportError(.readerUnavailable, "the reader was closed") }
        if driver.isStopping { throw CardTransportError(.readerUnavailable, "passtapd is stopping") }
        try driver.reacquire()
        let answer: [UInt8]
        do {
            // One byte more than READ answers, so a longer answer shows.
            answer = try device.transceive(
                [Self.readCommand, page], maxAnswer: Self.answerBytes + 1, timeoutMilliseconds: polling.apduTimeoutMilliseconds, abortable: true)
        } catch {
            throw driver.transportError(error)
        }
        guard answer.count == Self.answerBytes else {
            throw CardTransportError(.malformedResponse, "the tag answered READ of page \(page) with \(answer.count) bytes; 16 expected")
        }
        return answer
    }
}

@available(*, unavailable)
extension NFCTagMemory: Sendable {}
