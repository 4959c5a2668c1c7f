import ISO7816

/// A `card.transmit` waiting for its reader's thread.
struct ReaderRequest: Sendable {
    let id: UInt64
    let command: CommandAPDU
    let raw: Bool
    let reply: CheckedContinuation<Result<ResponseAPDU, ReaderCommandError>, Never>
}
