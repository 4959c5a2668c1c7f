#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A debug trace of a tap's way from the card's last answer to the socket, stage by stage, for
/// the profile in `docs/performance.md` ("A tap, stage by stage").
///
/// Off unless passtapd's environment sets `PASSTAP_TAP_TRACE` (to anything): then each stage of a
/// `read.result` costs one `CLOCK_MONOTONIC` read and one lock, and once its line is written to
/// the first subscriber's socket passtapd prints one line to standard error:
///
///     tap-trace seq=12 answer_received=… session_done=… encoded=… published=… written=…
///
/// with each stage's `CLOCK_MONOTONIC` time in nanoseconds (the clock a client's arrival time can
/// be compared with). Off, ``mark(_:)`` is one test of a constant.
public enum TapTrace {
    /// The stages. A build that encodes when the hub publishes passes them in this order; the
    /// early 0.1 builds encoded on the way to the first subscriber, after `published`.
    public enum Stage: Int, CaseIterable, Sendable {
        /// The card's answer to an APDU came back (the last one of the session counts).
        case answerReceived
        /// The session engine returned the tap's outcome.
        case sessionDone
        /// The hub encoded the `read.result` line of each view.
        case encoded
        /// The hub queued it for every subscriber (their event loops are woken next).
        case published
        /// A subscriber's event loop wrote the line to its socket (the first subscriber's).
        case written

        var name: String {
            switch self {
            case .answerReceived: "answer_received"
            case .sessionDone: "session_done"
            case .encoded: "encoded"
            case .published: "published"
            case .written: "written"
            }
        }
    }

    /// Whether `PASSTAP_TAP_TRACE` was set when passtapd started.
    public static let isEnabled = getenv("PASSTAP_TAP_TRACE") != nil

    private static let marks = Mutex<[UInt64]>(Array(repeating: 0, count: Stage.allCases.count))

    /// Notes that the tap in progress reached `stage`, now.
    @inline(__always)
    public static func mark(_ stage: Stage) {
        guard isEnabled else { return }
        record(stage)
    }

    /// Notes that the `read.result` numbered `seq` reached `stage` (``Stage/written`` prints the
    /// trace line and starts over, so later subscribers of the same event add nothing).
    @inline(__always)
    public static func mark(_ stage: Stage, seq: UInt64) {
        guard isEnabled else { return }
        record(stage, seq: seq)
    }

    private static func record(_ stage: Stage, seq: UInt64? = nil) {
        let now = monotonicNanoseconds()
        let line = marks.withLock { marks -> String? in
            guard stage == .written else {
                marks[stage.rawValue] = now
                return nil
            }
            guard marks[Stage.published.rawValue] != 0 else { return nil }  // already printed
            marks[stage.rawValue] = now
            let fields = Stage.allCases.map { "\($0.name)=\(marks[$0.rawValue])" }.joined(separator: " ")
            for index in marks.indices { marks[index] = 0 }
            return "tap-trace seq=\(seq ?? 0) \(fields)\n"
        }
        guard var line else { return }
        line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
