import PassTapCore
import PassTapTestSupport
import Testing

@testable import PassTapDaemon

/// `FileDescriptorBudgetError` is equal by code (`docs/architecture.md`, "Errors: equal by code").
@Suite struct FileDescriptorBudgetErrorEqualityTests {
    @Test func aBudgetErrorIsEqualByCodeWhateverItsFileAndNumbers() throws {
        let budget = FileDescriptorBudget(try ConfigLoader.parse("", file: "t.toml"), eventLoops: 2)
        let low = FileDescriptorLimit(soft: 8, hard: 8)
        let error = FileDescriptorBudgetError(file: "a.toml", budget: budget, limit: low, raiseError: nil)
        #expect(error.code == .hardLimitTooLow)
        #expect(
            followsEqualByCode(
                error, sameCode: FileDescriptorBudgetError(file: "b.toml", budget: budget, limit: FileDescriptorLimit(soft: 9, hard: 9), raiseError: nil),
                otherCode: FileDescriptorBudgetError(file: "a.toml", budget: budget, limit: low, raiseError: 1)))
    }
}
