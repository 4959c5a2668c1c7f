#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// passtapd refuses to start: its ``FileDescriptorBudget`` does not fit the open-file limit, and
/// the soft limit cannot be raised far enough. Equal by ``code``.
public struct FileDescriptorBudgetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why the budget does not fit.
    public enum Code: String, Hashable, Sendable {
        /// The hard limit is below the budget.
        case hardLimitTooLow = "hard_limit_too_low"
        /// The hard limit would do, but raising the soft limit to the budget failed.
        case raiseFailed = "raise_failed"
    }

    /// The config file the budget comes from.
    public let file: String
    /// The budget, term by term.
    public let budget: FileDescriptorBudget
    /// The limit the process has.
    public let limit: FileDescriptorLimit
    /// setrlimit(2)'s errno when raising the soft limit failed; `nil` when the hard limit is too low.
    public let raiseError: Int32?

    /// Why the budget does not fit.
    public var code: Code { raiseError == nil ? .hardLimitTooLow : .raiseFailed }

    /// What is wrong and what to do, without the file's name.
    public var problem: String {
        let problem =
            raiseError.map { "cannot raise the soft open-file limit \(limit) to \(budget.total): \(String(cString: strerror($0)))" }
            ?? "the open-file limit (RLIMIT_NOFILE) \(limit) is below the file descriptor budget"
        return "\(problem); budget \(budget). Lower [socket] max_clients, [metrics] max_connections or [web] max_clients (each changes at a"
            + " restart of passtapd, not a reload), turn off a reader backend you do not use, or raise the hard limit (LimitNOFILE= in the"
            + " systemd unit, ulimit -Hn) and restart passtapd"
    }

    public var description: String { "\(file): \(problem)" }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
