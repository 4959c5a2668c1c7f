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

let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
guard CommandLine.arguments.count >= 2, let chosen = FuzzTarget(rawValue: CommandLine.arguments[1]) else {
    FileHandle.standardError.write(Data("usage: passtap-fuzz TARGET [libFuzzer options] [corpus folders]; TARGET is one of \(names)\n".utf8))
    exit(64)
}
target = chosen

// libFuzzer sees the program name, then everything after TARGET.
let argv = CommandLine.unsafeArgv
argv[1] = argv[0]
var count = CommandLine.argc - 1
var rest: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv + 1
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
