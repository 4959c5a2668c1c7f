public import ISO7816
public import Logging

/// Everything `passtapd` is told by its TOML file, validated.
///
/// The file's key names are a fixed contract (see `Config/passtapd.toml`); this model is built
/// only by `ConfigLoader`, which refuses anything it does not understand. It holds the core
/// tables; a feature's table lives in its slice (docs/architecture.md, "Feature slices") and is
/// kept here in ``features``.
public struct Configuration: Sendable, Hashable {
    /// `[socket]`: the Unix socket clients connect to.
    public struct Socket: Sendable, Hashable {
        /// `path`: where the socket file lives.
        public var path: String = "/run/passtap/passtapd.sock"
        /// `mode`: the socket file's permission bits (`"0660"` in the file).
        public var mode: UInt16 = 0o660
        /// `group`: the group to give the socket file; `nil` leaves it as created.
        public var group: String? = nil
        /// `max_clients`: connections beyond this are refused.
        public var maxClients: Int = 64
        /// `allow_transmit`: whether `card.transmit` is served (raw APDUs can read payment data).
        public var allowTransmit: Bool = false
        /// `max_clients_per_uid`: connections one user may hold at once, so one user cannot take
        /// every slot of `max_clients`.
        public var maxClientsPerUID: Int = 32
        /// `idle_timeout_ms`: a connection that is neither subscribed nor waiting for an answer is
        /// closed after this long without a request.
        public var idleTimeoutMilliseconds: Int = 60_000
        /// `vas_reads_per_uid`: how many `vas.read` one user may have waiting on one reader.
        public var vasReadsPerUID: Int = 1

        /// The defaults of the shipped config.
        public init() {}
    }

    /// `[events]`: the replay buffer and per-client queues.
    public struct Events: Sendable, Hashable {
        /// `buffer`: how many recent events stay in memory for `events.subscribe` with `since`.
        public var buffer: Int = 1024
        /// `buffer_bytes`: how many bytes of events (their `event` lines) that buffer holds at
        /// most; the oldest go first when either bound is reached. 4 MiB: at least 64 of the
        /// largest (64 KiB) lines.
        public var bufferBytes: Int = 4 * 1024 * 1024
        /// `client_queue`: how many events may wait for one slow client before it gets `events.dropped`.
        public var clientQueue: Int = 256

        /// The defaults of the shipped config.
        public init() {}
    }

    /// A reader backend's section (`[pcsc]`): whether it runs and which of its readers it drives.
    public struct BackendSection: Sendable, Hashable {
        /// `enabled`: whether to drive this backend's readers at all.
        public var enabled: Bool = true
        /// `readers`: substrings of reader names to use; empty means every reader.
        public var readers: [String] = []

        /// The defaults of the shipped config.
        public init() {}

        /// Whether a reader of this name is one to drive.
        public func accepts(readerName: String) -> Bool {
            readers.isEmpty || readers.contains { readerName.contains($0) }
        }
    }

    /// `[[reader]]`: settings for the readers whose name contains `match`.
    public struct ReaderOverride: Sendable, Hashable {
        /// `match`: a substring of the reader name.
        public var match: String
        /// `aids`: the SELECT order for these readers, replacing `[session] aids`.
        public var aids: [AID]?

        /// Creates an override.
        public init(match: String, aids: [AID]?) {
            self.match = match
            self.aids = aids
        }
    }

    /// `[socket]`.
    public var socket = Socket()
    /// `[events]`.
    public var events = Events()
    /// `[access]`: who may do what on the socket.
    public var access = Access()
    /// `[log] level`.
    public var logLevel: Logger.Level = .info
    /// Each backend's section, by backend name (`[pcsc]`, `[libnfc]`); a backend without one is
    /// not run.
    public var backends: [ReaderID.Backend: BackendSection] = [.pcsc: BackendSection()]
    /// `[session] aids`: the global SELECT order.
    public var aids: [AID] = []
    /// `[session] ppse`: find the payment application through `2PAY.SYS.DDF01` before the AID list.
    public var ppse: Bool = false
    /// `[session] budget_ms`: a tap's time budget; past it the session ends between two exchanges
    /// with `session_timeout`.
    public var sessionBudgetMilliseconds: Int = 2000
    /// `[libnfc]`: the libnfc backend's devices and polling (whether it runs: `backends[.nfc]`).
    public var libnfc = LibNFC()
    /// `[[reader]]` entries, in file order; the first whose `match` fits a reader applies.
    public var readerOverrides: [ReaderOverride] = []
    /// Each feature's table (`[vas]`, `[smarttap]`, `[ndef]`, `[metrics]`, `[web]`, `[forward]`), by
    /// its settings type: the feature's settings target adds the property (`configuration.web`)
    /// that reads it here.
    public var features = FeatureSettingsStore()

    /// The built-in defaults (what an empty file means).
    public init() {}

    /// The section of `backend`; a disabled one when the configuration has none.
    public func section(_ backend: ReaderID.Backend) -> BackendSection {
        if let section = backends[backend] { return section }
        var disabled = BackendSection()
        disabled.enabled = false
        return disabled
    }

    /// The SELECT order for a reader: its first matching `[[reader]]` override (matched against the
    /// reader id, which contains the reader's name), else the global list.
    public func aids(for reader: ReaderID) -> [AID] {
        for override in readerOverrides where reader.rawValue.contains(override.match) {
            if let aids = override.aids { return aids }
        }
        return aids
    }
}
