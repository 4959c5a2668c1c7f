import Foundation
import PassTapServer
import Testing

/// `status`'s `clock_synchronised` against an independent reading: Python's ctypes calling the C
/// library's adjtimex(2) with modes 0, deciding by the kernel's own constants.
@Suite(.timeLimit(.minutes(1))) struct ClockSynchronisationTests {
    /// TIME_ERROR is 5 and STA_UNSYNC 0x0040 in <sys/timex.h>; `struct timex` starts with
    /// `unsigned int modes` then (after padding) longs: offset, freq, maxerror, esterror, then
    /// `int status`. The buffer is oversized so the kernel's 208-byte struct fits.
    static let script = """
        import ctypes, struct
        libc = ctypes.CDLL(None, use_errno=True)
        buf = ctypes.create_string_buffer(512)
        state = libc.adjtimex(buf)
        if state == -1:
            print("error")
        else:
            status = struct.unpack_from("i", buf.raw, 8 + 8 * 4)[0]
            print("unsynchronised" if state == 5 or status & 0x0040 else "synchronised")
        """

    @Test func agreesWithAdjtimexCalledFromPython() async throws {
        let independent = try await Self.runPython(Self.script)
        let ours = ClockSynchronisation.isSynchronised()
        switch independent {
        case "synchronised": #expect(ours == true)
        case "unsynchronised": #expect(ours == false)
        default: #expect(ours == nil, "python says \(independent)")
        }
    }

    /// Runs python3 on its own thread (the wait blocks), never on the cooperative pool.
    static func runPython(_ script: String) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            Thread.detachNewThread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = ["python3", "-c", script]
                let output = Pipe()
                process.standardOutput = output
                do {
                    try process.run()
                    let data = output.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(returning: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
