internal import CPCSCLite
import Glibc
import Synchronization
import Logging

/// One pcsc-lite context (`SCARDCONTEXT`), owned by one thread.
///
/// `SCardGetStatusChange` holds its context's lock for the whole wait, so the monitor thread and
/// every reader thread each establish their own. Only ``cancel()`` may be called from another
/// thread: that is what `SCardCancel` is for.
final class PCSCContext: @unchecked Sendable {
    // @unchecked: `handle` is immutable and `released` is a Mutex; pcsc-lite documents
    // SCardCancel as callable from any thread, and every other call is made only by the owning
    // thread. `Logger` is Sendable.
    let handle: SCARDCONTEXT
    private let logger: Logger

    /// The pseudo-reader whose state changes when readers come and go.
    static let plugAndPlayReader = "\\\\?PnP?\\Notification"

    /// Establishes a context; throws when pcscd is not reachable.
    init(logger: Logger) throws(PCSCError) {
        var context: SCARDCONTEXT = 0
        try pcsc("SCardEstablishContext") { SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context) }
        handle = context
        self.logger = logger
    }

    /// Whether ``release()`` ran.
    private let released = Mutex(false)

    /// Releases the context (`SCardReleaseContext`, a call to pcscd). The owning thread calls it
    /// when it is done, so that the release never runs where the last reference happens to be
    /// dropped (a task handing the context to the canceller, say). Later calls do nothing.
    ///
    /// The release runs under the same lock as ``cancel()``: libpcsclite's `SCardCancel` looks the
    /// context up and then uses it without the context's own lock, so a release between the two
    /// frees what the cancel is about to touch (a segfault inside libpcsclite on shutdown with a
    /// card in the field, seen once in CI).
    func release() {
        let error: PCSCError? = released.withLock { released in
            guard !released else { return nil }
            released = true
            return pcscRelease("SCardReleaseContext") { SCardReleaseContext(handle) }
        }
        if let error {
            logger.debug("Context release failed (pcscd gone?)", metadata: ["error": "\(error)"])
        }
    }

    deinit {
        // A context its owner forgot to release is released here, on whatever thread this is.
        release()
    }

    /// Wakes a `SCardGetStatusChange` waiting on this context. Safe from any thread. A cancel
    /// that arrives while no wait is pending is lost: callers bound their waits (see
    /// ``PCSCReaderDriver/waitSliceMilliseconds``).
    func cancel() {
        // A released context has nothing to wake (and its handle may be reused); the lock keeps
        // the owner's release from running during the call (see ``release()``). Only the
        // canceller thread calls this, so holding the lock across a round trip to pcscd blocks
        // no task and no event loop.
        let error: PCSCError? = released.withLock { released in
            guard !released else { return nil }
            return pcscRelease("SCardCancel") { SCardCancel(handle) }
        }
        if let error {
            logger.debug("Cancel failed (pcscd gone?)", metadata: ["error": "\(error)"])
        }
    }

    /// The names of the readers pcscd knows; empty when there are none.
    func readerNames() throws(PCSCError) -> [String] {
        var length: DWORD = 0
        do {
            try pcsc("SCardListReaders") { SCardListReaders(handle, nil, nil, &length) }
        } catch where error.code == .noReadersAvailable {
            return []
        }
        var buffer = [CChar](repeating: 0, count: Int(length))
        do {
            try pcsc("SCardListReaders") { SCardListReaders(handle, nil, &buffer, &length) }
        } catch where error.code == .noReadersAvailable {
            return []
        }
        // A multi-string: names separated by NUL, ended by an empty name.
        return buffer.split(separator: 0).map { String(decoding: $0.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
    }

    /// Waits until one of `readers` differs from its known state or `timeoutMilliseconds` pass
    /// (`SCardGetStatusChange`). Returns the new states, in order.
    func waitForChange(_ readers: [ReaderWatch], timeoutMilliseconds: UInt32) throws(PCSCError) -> [ReaderWatch] {
        let names = readers.map { strdup($0.name) }
        defer { names.forEach { free($0) } }
        var states = readers.enumerated().map { index, watch in
            var state = SCARD_READERSTATE()
            state.szReader = UnsafePointer(names[index])
            state.dwCurrentState = DWORD(watch.state)
            return state
        }
        try pcsc("SCardGetStatusChange") {
            SCardGetStatusChange(handle, DWORD(timeoutMilliseconds), &states, DWORD(states.count))
        }
        return states.enumerated().map { index, state in
            var atr = state.rgbAtr
            let bytes = withUnsafeBytes(of: &atr) { Array($0.prefix(Int(min(state.cbAtr, DWORD(MAX_ATR_SIZE))))) }
            return ReaderWatch(name: readers[index].name, state: UInt32(truncatingIfNeeded: state.dwEventState), atr: bytes)
        }
    }
}

/// A reader's name and the state bits (`SCARD_STATE_*`, event count in the top 16 bits) as last seen.
struct ReaderWatch: Sendable {
    var name: String
    var state: UInt32
    var atr: [UInt8] = []

    static let unaware = UInt32(SCARD_STATE_UNAWARE)
    static let changed = UInt32(SCARD_STATE_CHANGED)
    static let present = UInt32(SCARD_STATE_PRESENT)
    static let empty = UInt32(SCARD_STATE_EMPTY)
    static let mute = UInt32(SCARD_STATE_MUTE)
    static let unavailable = UInt32(SCARD_STATE_UNAVAILABLE)
    static let unknown = UInt32(SCARD_STATE_UNKNOWN)

    /// A card that answered reset is in the field.
    var hasCard: Bool { state & Self.present != 0 && state & Self.mute == 0 }
    /// The reader is gone or unusable.
    var isGone: Bool { state & (Self.unknown | Self.unavailable) != 0 }
    /// The state to pass back as "known": the event bits without CHANGED.
    var known: UInt32 { state & ~Self.changed }
}
