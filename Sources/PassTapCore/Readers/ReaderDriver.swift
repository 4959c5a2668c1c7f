/// The verbs a backend supplies for one reader; the shared lifecycle (``ReaderLifecycle``) does
/// the rest: the thread, the state, the request queue, the events, restarts and stopping.
///
/// ``open()`` runs on the reader's thread and returns a ``ReaderDriver`` that only that thread
/// uses. ``wake()`` and ``stop()`` come from any thread and must not block: a backend whose
/// library can only be woken by a blocking call (pcsc-lite's `SCardCancel` is a round trip to
/// pcscd) hands it to a thread of its own. They are two verbs because waking a thread to serve a
/// request must not kill a transfer in progress, which stopping may (`nfc_abort_command`).
public protocol ReaderPort: Sendable {
    /// Opens the reader for its thread (a pcsc-lite context, a libnfc device).
    func open() throws(ReaderFault) -> any ReaderDriver
    /// Ends the driver's current wait soon, so its thread serves a queued request.
    func wake()
    /// Ends the driver's current wait (and, where the library allows, its transfer) for good.
    func stop()
    /// Runs on the reader's new thread before the reader is announced: `nil` when the reader is
    /// there, else why not. A reader whose fault is `gone` is not announced, and its thread ends.
    func probe() -> ReaderFault?
}

extension ReaderPort {
    /// `nil`: a reader the discovery lists is there (pcsc-lite lists only readers it drives).
    public func probe() -> ReaderFault? { nil }
}

/// One reader opened for its thread. Every call blocks, and only the reader's thread makes them.
public protocol ReaderDriver: AnyObject {
    /// Waits for a card: returns it once it is in the field, ``CardWait/idle`` when woken or after
    /// a bounded slice, or the fault that ended the reader.
    func waitForCard() -> CardWait
    /// With the current tap's card in the field: waits until it leaves (``PresenceWait/removed``),
    /// until woken or a slice ends (``PresenceWait/present``), or the reader fails.
    func waitForRemoval() -> PresenceWait
    /// Ends the tap: lets go of the card. `stopping` is true when the daemon stops with the card
    /// still in the field (a backend then resets it, so a phone's session is released).
    func endTap(stopping: Bool)
    /// The reader's control channel without a card (PC/SC: a direct connection and
    /// `SCardControl`), for the hooks' work when the reader appears; `nil` where the backend has
    /// none (libnfc).
    var readerControl: (any ReaderControl)? { get }
}

extension ReaderDriver {
    /// No control channel.
    public var readerControl: (any ReaderControl)? { nil }
}

/// What ``ReaderDriver/waitForCard()`` saw.
public enum CardWait {
    /// A card is in the field.
    case card(Tap)
    /// Nothing yet (woken, or a wait slice ended).
    case idle
    /// The reader cannot be used.
    case failed(ReaderFault)
}

/// What ``ReaderDriver/waitForRemoval()`` saw.
public enum PresenceWait {
    /// The card is still there.
    case present
    /// The card left the field.
    case removed
    /// The reader cannot be used.
    case failed(ReaderFault)
}

/// Why a reader cannot be used: whether the lifecycle ends the reader, waits for it, or restarts it.
public struct ReaderFault: Error, Hashable, Sendable, CustomStringConvertible {
    /// What the lifecycle does about it.
    public enum Kind: String, Hashable, Sendable {
        /// The reader is gone (unplugged, or its stack went away): its thread ends with `reader.removed`.
        case gone
        /// Another process holds the reader (a sharing violation): `unavailable` with the reason,
        /// retried until it is free.
        case inUse
        /// Anything else: `unavailable` with the reason, and the reader is reopened with backoff.
        case failed
    }

    /// What the lifecycle does about it.
    public var kind: Kind
    /// A sentence for a person, published as the reader's `reason`.
    public var reason: String

    /// Creates a fault.
    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "\(kind.rawValue): \(reason)" }

    public static func == (lhs: ReaderFault, rhs: ReaderFault) -> Bool { lhs.kind == rhs.kind }
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }
}
