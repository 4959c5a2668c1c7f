/// A feature's work on a reader's side of a tap, after the tap's `read.result` is published: the
/// reader feedback (LED, buzzer) is one (docs/architecture.md, "Reader hooks").
///
/// The tap coordinator runs every hook on the reader's own thread, in the order the daemon's
/// slices list them, once the result is published and before the reader serves queued
/// `card.transmit` requests or waits for the card to leave: a hook delays no client's line, but
/// it does delay the next request on that reader, so it must be short and must not wait on
/// anything but the reader. A tap the reader's lifecycle abandoned runs no hook.
///
/// A hook reports on itself in `readers.list` and `status` (``state(of:)``, ``problems()``);
/// both are called from the socket's tasks, so they only read what the hook recorded.
public protocol ReaderHook: Sendable {
    /// The hook's name: its key in a reader's `hooks` member (`readers.list`, `status`).
    var name: String { get }
    /// Acts on the reader that just read `result`. Runs on that reader's thread; errors are the
    /// hook's to record (``state(of:)``): the tap is over and nothing a hook does can change it.
    func tapFinished(_ reader: ReaderAccess, result: ReadResult)
    /// Acts on a reader that just opened, before its first tap, with no card (`reader`'s channel
    /// is `nil`; its control channel, if any, is a direct connection). Runs on its thread.
    func readerOpened(_ reader: ReaderAccess)
    /// What the hook has to say about `reader` in `readers.list` and `status` (a short phrase: "on",
    /// "failed: …"); `nil` leaves the reader's `hooks` member without this hook.
    func state(of reader: ReaderID) -> String?
    /// Why the hook is failing now, one sentence each (each makes `status` `degraded`).
    func problems() -> [String]
}

extension ReaderHook {
    public func readerOpened(_ reader: ReaderAccess) {}
    public func state(of reader: ReaderID) -> String? { nil }
    public func problems() -> [String] { [] }
}

/// What a ``ReaderHook`` may use of the reader that just read a tap: its exchange with the card
/// (`SCardTransmit`: an ACR122U's pseudo-APDUs `FF 00 40 …` go this way) and, where the backend
/// has one, the reader's control channel (`SCardControl`: an ACR1252U's escape commands). Valid
/// only during ``ReaderHook/tapFinished(_:result:)``, on the reader's thread.
public struct ReaderAccess {
    /// The reader.
    public let reader: ReaderID
    /// The card's channel; `nil` when the backend cannot exchange bytes with this card.
    public let channel: (any CardChannel)?
    /// The reader's control channel; `nil` when the backend has none (libnfc).
    public let control: (any ReaderControl)?

    /// Access to `reader` through `channel` and `control`.
    public init(reader: ReaderID, channel: (any CardChannel)?, control: (any ReaderControl)?) {
        self.reader = reader
        self.channel = channel
        self.control = control
    }
}

@available(*, unavailable)
extension ReaderAccess: Sendable {}

/// A reader's control channel: PC/SC's `SCardControl`, which speaks to the reader itself, not to
/// the card (vendor escape commands). Blocks its caller: reader threads only.
public protocol ReaderControl: AnyObject {
    /// Sends `command` with the control code `code` (the driver's `SCARD_CTL_CODE(…)`) and
    /// returns the reader's answer.
    /// - Throws: ``CardTransportError`` when the reader refuses or cannot answer.
    func control(code: UInt32, _ command: [UInt8]) throws(CardTransportError) -> [UInt8]
}

/// The hooks of every slice, run in order after each tap and asked together for their part in
/// `readers.list` and `status`.
public struct ReaderHooks: Sendable {
    /// The hooks, in the daemon's slice order.
    public let hooks: [any ReaderHook]

    /// `hooks`, in order; none by default.
    public init(_ hooks: [any ReaderHook] = []) {
        self.hooks = hooks
    }

    /// Runs every hook for the tap that read `result` on `reader`.
    func tapFinished(_ reader: ReaderAccess, result: ReadResult) {
        for hook in hooks { hook.tapFinished(reader, result: result) }
    }

    /// Runs every hook for a reader that just opened.
    func readerOpened(_ reader: ReaderAccess) {
        for hook in hooks { hook.readerOpened(reader) }
    }

    /// `readers` with each one's `hooks` member filled from the hooks' states (left out when no
    /// hook has anything to say about it).
    public func describing(_ readers: [ReaderInfo]) -> [ReaderInfo] {
        guard !hooks.isEmpty else { return readers }
        return readers.map { reader in
            var reader = reader
            let states = hooks.compactMap { hook in hook.state(of: reader.id).map { (hook.name, $0) } }
            reader.hooks = states.isEmpty ? nil : Dictionary(states, uniquingKeysWith: { first, _ in first })
            return reader
        }
    }

    /// Every hook's problems, in order.
    public func problems() -> [String] { hooks.flatMap { $0.problems() } }
}
