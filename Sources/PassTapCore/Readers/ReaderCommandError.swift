/// Why a socket request aimed at a reader (`card.transmit`) could not be carried out.
public enum ReaderCommandError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No reader has this id. `readers.list` shows the ids.
    case unknownReader(ReaderID)
    /// The reader is there but holds no card. Tap a card first.
    case noCard(ReaderID)
    /// The reader is known but unusable right now (pcscd down, unplugged).
    case readerUnavailable(ReaderID)
    /// The exchange with the card failed.
    case transport(CardTransportError)
    /// The daemon is shutting down.
    case shuttingDown

    public var description: String {
        switch self {
        case .unknownReader(let id): return "no reader '\(id)': `passtap readers` lists them"
        case .noCard(let id): return "no card on '\(id)': present a card and retry"
        case .readerUnavailable(let id): return "reader '\(id)' is unavailable (pcscd down or reader unplugged)"
        case .transport(let error): return error.description
        case .shuttingDown: return "the daemon is shutting down"
        }
    }
}
