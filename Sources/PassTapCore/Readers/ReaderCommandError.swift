/// Why a socket request aimed at a reader (`card.transmit`) could not be carried out.
public enum ReaderCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No reader has this id. `readers.list` shows the ids.
    case unknownReader(ReaderID)
    /// The reader is there but holds no card. Tap a card first.
    case noCard(ReaderID)
    /// The reader is known but unusable right now (its stack is down, it was unplugged, another
    /// process holds it); `reason` says which when known.
    case readerUnavailable(ReaderID, reason: String?)
    /// The card in the field does not speak ISO-DEP and the reader cannot send it APDUs.
    case notISODep(ReaderID)
    /// The exchange with the card failed.
    case transport(CardTransportError)
    /// The request's caller went away (its task was cancelled) before the request was sent.
    case cancelled
    /// The daemon is shutting down.
    case shuttingDown

    public var description: String {
        switch self {
        case .unknownReader(let id): return "no reader '\(id)': `passtap readers` lists them"
        case .noCard(let id): return "no card on '\(id)': present a card and retry"
        case .readerUnavailable(let id, let reason?): return "reader '\(id)' is unavailable: \(reason)"
        case .readerUnavailable(let id, nil): return "reader '\(id)' is unavailable (its reader stack is down, or it was unplugged)"
        case .notISODep(let id): return "the card on '\(id)' does not speak ISO-DEP (a memory card): it takes no APDUs"
        case .transport(let error): return error.description
        case .cancelled: return "the request was cancelled before it reached the card"
        case .shuttingDown: return "the daemon is shutting down"
        }
    }
}
