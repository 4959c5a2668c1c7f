public import PassTapCore

/// The result of `readers.list`: `{"readers": [{"id", "name", "backend", "state", "reason", "taps"}, ...]}`
/// (`taps`: the reader's ``TapCounts`` since it appeared).
public struct ReadersListResult: Sendable, Hashable, Codable {
    /// Every reader the daemon knows, sorted by id.
    public var readers: [ReaderInfo]

    /// Creates the answer.
    public init(readers: [ReaderInfo]) { self.readers = readers }
}
