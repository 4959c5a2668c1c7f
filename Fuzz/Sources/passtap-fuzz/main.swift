import CFuzzDriver
import Foundation
import PassTapFuzzTargets

// `passtap-fuzz TARGET [libFuzzer options and corpus folders]`: libFuzzer's driver on one of
// PassTap's fuzz targets. A finding is a crash, so libFuzzer saves the input (`crash-…`);
// scripts/fuzz keeps it in Tests/FuzzRegressionTests/Regressions/TARGET/.
//
// This program has its own main (this file), which hands the rest of the command line to
// libFuzzer's `LLVMFuzzerRunDriver`.

nonisolated(unsafe) var target = FuzzTarget.tlv

// libFuzzer starts copies of this program with its own options only (-fork, -jobs, -merge=1,
// -minimize_crash=1): they find the target in $PASSTAP_FUZZ_TARGET, which the first one sets.
let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
let argv = CommandLine.unsafeArgv
var count = CommandLine.argc
var rest: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
if CommandLine.arguments.count >= 2, let chosen = FuzzTarget(rawValue: CommandLine.arguments[1]) {
    target = chosen
    setenv("PASSTAP_FUZZ_TARGET", chosen.rawValue, 1)
    // libFuzzer sees the program name, then everything after TARGET.
    argv[1] = argv[0]
    count -= 1
    rest = argv + 1
} else if let chosen = ProcessInfo.processInfo.environment["PASSTAP_FUZZ_TARGET"].flatMap(FuzzTarget.init(rawValue:)) {
    target = chosen
} else {
    FileHandle.standardError.write(Data("usage: passtap-fuzz TARGET [libFuzzer options] [corpus folders]; TARGET is one of \(names)\n".utf8))
    exit(64)
}
exit(
    LLVMFuzzerRunDriver(&count, &rest) { data, size in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            try target.run(bytes)
        } catch {
            fatalError("passtap-fuzz \(target.rawValue): \(error)")
        }
        return 0
    })
