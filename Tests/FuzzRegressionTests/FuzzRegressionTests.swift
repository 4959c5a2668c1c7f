import Foundation
import PassTapFuzzTargets
import Testing

/// Every input a fuzzer found a crash, a hang or a broken invariant with (`Regressions/TARGET/`),
/// and each target's seed corpus (`Fuzz/Corpus/TARGET/`), run through the same target as the
/// fuzzer runs it: none may give a finding. Without the sanitizers, so this catches Swift traps,
/// C asserts and broken checks; `scripts/fuzz` replays the same inputs under ASan and LeakSanitizer
/// each time it starts a target.
@Suite(.timeLimit(.minutes(2))) struct FuzzRegressionTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The files of `folder`, sorted; none when it does not exist.
    static func inputs(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    static func regressions(_ target: FuzzTarget) throws -> [URL] {
        let folder = try #require(Bundle.module.url(forResource: "Regressions", withExtension: nil), "Regressions/ is not in the test bundle")
        return inputs(in: folder.appendingPathComponent(target.rawValue))
    }

    /// Runs each file through `target` on a thread of its own, as the fuzzer's own thread does:
    /// the `rpc` target waits for the dispatcher's task, which must not block a thread of the
    /// concurrency pool. The findings, by file name.
    static func findings(_ target: FuzzTarget, _ files: [URL]) async throws -> [String] {
        let inputs = try files.map { ($0.lastPathComponent, [UInt8](try Data(contentsOf: $0))) }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var findings: [String] = []
                for (name, bytes) in inputs {
                    do throws(FuzzFinding) {
                        try target.run(bytes)
                    } catch {
                        findings.append("\(target.rawValue)/\(name): \(error)")
                    }
                }
                continuation.resume(returning: findings)
            }
        }
    }

    @Test(arguments: FuzzTarget.allCases) func everySavedFindingNowPasses(_ target: FuzzTarget) async throws {
        #expect(try await Self.findings(target, try Self.regressions(target)) == [])
    }

    @Test(arguments: FuzzTarget.allCases) func everySeedPasses(_ target: FuzzTarget) async throws {
        let seeds = Self.inputs(in: Self.repository.appendingPathComponent("Fuzz/Corpus/\(target.rawValue)"))
        #expect(!seeds.isEmpty, "no seeds in Fuzz/Corpus/\(target.rawValue)")
        #expect(try await Self.findings(target, seeds) == [])
    }
}
