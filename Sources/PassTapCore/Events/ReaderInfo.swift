/// A reader as `readers.list` and `status` report it.
public struct ReaderInfo: Sendable, Hashable, Codable {
    /// Where a reader stands right now.
    public enum State: String, Sendable, Codable, Hashable {
        /// Ready, no card in the field.
        case empty
        /// A card is in the field.
        case present
        /// Known but not usable (another process holds it, a driver error): see `reason`.
        case unavailable
    }

    /// The stable id (`<backend>:<name>`).
    public var id: ReaderID
    /// The name the reader stack gives it.
    public var name: String
    /// The backend that drives it: `pcsc` or `nfc`.
    public var backend: String
    /// Its state now.
    public var state: State
    /// Why it is `unavailable`, for a person (`null` otherwise, and when no reason is known).
    @Nullable public var reason: String?
    /// Its taps since it appeared, by outcome: in `readers.list` and `status` only (the
    /// ``HealthLedger`` fills it in); events leave the member out.
    public var taps: TapCounts?
    /// What each reader-side hook (``ReaderHook``: the reader feedback) says of it, by the hook's
    /// name: in `readers.list` and `status` only, and left out when no hook says anything.
    public var hooks: [String: String]?

    /// Creates a reader description.
    public init(
        id: ReaderID, name: String, backend: String, state: State, reason: String? = nil, taps: TapCounts? = nil,
        hooks: [String: String]? = nil
    ) {
        self.hooks = hooks
        self.id = id
        self.name = name
        self.backend = backend
        self.state = state
        self.reason = reason
        self.taps = taps
    }
}
