#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`), and what start-up does with it for a
/// ``FileDescriptorBudget``: nothing when the soft limit covers the budget, raise the soft limit to
/// the budget when the hard limit allows, refuse to start otherwise.
///
/// The soft limit is raised to the budget, not to the hard limit: descriptors then stay below
/// 1024 whenever the budget does, which matters to code that still uses `select(2)` (libnfc's
/// serial driver does).
public struct FileDescriptorLimit: Sendable, Hashable, CustomStringConvertible {
    /// The soft limit: the most descriptors the process may have open now.
    public var soft: Int
    /// The hard limit: how far an unprivileged process may raise ``soft``.
    public var hard: Int

    /// A limit of these values (``Int/max`` for unlimited).
    public init(soft: Int, hard: Int) {
        self.soft = soft
        self.hard = hard
    }

    /// What start-up does for a budget.
    public enum Verdict: Sendable, Hashable {
        /// The soft limit covers the budget.
        case fits
        /// Only the hard limit does: raise the soft limit to this.
        case raise(to: Int)
        /// Not even the hard limit does.
        case exceedsHard
    }

    /// What start-up does for `budget` descriptors under this limit.
    public func verdict(for budget: Int) -> Verdict {
        if budget <= soft { return .fits }
        if budget <= hard { return .raise(to: budget) }
        return .exceedsHard
    }

    /// The calling process's limit (getrlimit(2)).
    public static func current() -> FileDescriptorLimit {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return FileDescriptorLimit(soft: 0, hard: 0) }
        return FileDescriptorLimit(soft: Self.count(limit.rlim_cur), hard: Self.count(limit.rlim_max))
    }

    /// Sets the calling process's soft limit to `soft`, keeping the hard one (setrlimit(2)).
    /// Returns the errno of a refusal, `nil` when it was set.
    public static func setSoft(_ soft: Int) -> Int32? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return errno }
        limit.rlim_cur = rlim_t(soft)
        return setrlimit(resource, &limit) == 0 ? nil : errno
    }

    /// `1024 (hard 524288)`.
    public var description: String {
        func text(_ value: Int) -> String { value == .max ? "unlimited" : "\(value)" }
        return "\(text(soft)) (hard \(text(hard)))"
    }

    #if canImport(Glibc)
    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    private static let resource = RLIMIT_NOFILE
    #endif

    private static func count(_ value: rlim_t) -> Int {
        // RLIM_INFINITY is all ones, which the importer cannot bring in as an unsigned constant.
        value > rlim_t(Int.max) ? .max : Int(value)
    }
}
