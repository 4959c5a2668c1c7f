internal import CPCSCLite
import PassTapCore

/// The largest answer `SCardControl` is given room for (pcsc-lite's `MAX_BUFFER_SIZE`).
private let maximumControlAnswerBytes = 264

/// One `SCardControl` on `handle`, through the PC/SC chokepoint.
func pcscControl(_ handle: SCARDHANDLE, code: UInt32, _ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
    var answer = [UInt8](repeating: 0, count: maximumControlAnswerBytes)
    var length: DWORD = 0
    do {
        try pcsc("SCardControl") {
            SCardControl(handle, DWORD(code), command, DWORD(command.count), &answer, DWORD(answer.count), &length)
        }
    } catch {
        throw error.transportError
    }
    return Array(answer.prefix(Int(length)))
}

/// A reader's control channel without a card: each call connects directly
/// (`SCARD_SHARE_DIRECT`, protocol 0), sends one `SCardControl` and lets go, so the reader's
/// shared card connections are never held up. Used by its reader's thread only.
final class PCSCDirectControl: ReaderControl {
    private let context: PCSCContext
    private let readerName: String

    /// The control channel of `readerName`, through `context`.
    init(context: PCSCContext, readerName: String) {
        self.context = context
        self.readerName = readerName
    }

    func control(code: UInt32, _ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        var handle: SCARDHANDLE = 0
        var active: DWORD = 0
        do {
            try pcsc("SCardConnect") { SCardConnect(context.handle, readerName, DWORD(SCARD_SHARE_DIRECT), 0, &handle, &active) }
        } catch {
            throw error.transportError
        }
        defer { _ = pcscRelease("SCardDisconnect") { SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD)) } }
        return try pcscControl(handle, code: code, command)
    }
}

@available(*, unavailable)
extension PCSCDirectControl: Sendable {}
