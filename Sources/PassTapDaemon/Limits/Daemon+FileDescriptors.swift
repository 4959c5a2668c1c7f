public import PassTapCore

extension Daemon {
    /// Makes sure the open-file limit covers `budget` before anything starts: keeps a soft limit
    /// that does, raises one that does not up to the budget (when the hard limit allows), and
    /// refuses otherwise. Returns the limit now in force. `limit` and `setSoft` are the process's
    /// own (getrlimit and setrlimit) unless a test gives others.
    /// - Throws: ``FileDescriptorBudgetError`` naming `file`, the budget's terms and the limit.
    public static func reserveFileDescriptors(
        for budget: FileDescriptorBudget, file: String, limit: FileDescriptorLimit = .current(),
        setSoft: (Int) -> Int32? = FileDescriptorLimit.setSoft
    ) throws(FileDescriptorBudgetError) -> FileDescriptorLimit {
        switch limit.verdict(for: budget.total) {
        case .fits:
            return limit
        case .raise(let soft):
            if let failure = setSoft(soft) {
                throw FileDescriptorBudgetError(file: file, budget: budget, limit: limit, raiseError: failure)
            }
            return FileDescriptorLimit(soft: soft, hard: limit.hard)
        case .exceedsHard:
            throw FileDescriptorBudgetError(file: file, budget: budget, limit: limit, raiseError: nil)
        }
    }

    /// What `--check-config` says of the budget: throws when the daemon would refuse to start under
    /// `limit` (the checking process's own: under the unit, `ExecStartPre` has the daemon's).
    /// - Throws: ``FileDescriptorBudgetError``.
    public static func checkFileDescriptors(
        for budget: FileDescriptorBudget, file: String, limit: FileDescriptorLimit = .current()
    ) throws(FileDescriptorBudgetError) {
        guard limit.verdict(for: budget.total) == .exceedsHard else { return }
        throw FileDescriptorBudgetError(file: file, budget: budget, limit: limit, raiseError: nil)
    }
}
