import Foundation
import Synchronization

/// Counts a process's open file descriptors (the entries of `/proc/PID/fd`) about every
/// millisecond on a thread of its own, from ``init(pid:)`` to ``stop()``, and keeps the most it saw.
final class DescriptorWatch: Sendable {
    private struct State {
        var most = 0
        var samples = 0
        var stopping = false
    }

    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    /// Starts counting `pid`'s descriptors.
    init(pid: Int32) {
        let thread = Thread { [self] in
            let folder = "/proc/\(pid)/fd"
            while !self.state.withLock({ $0.stopping }) {
                if let count = try? FileManager.default.contentsOfDirectory(atPath: folder).count {
                    self.state.withLock {
                        $0.most = max($0.most, count)
                        $0.samples += 1
                    }
                }
                // A pace, not a wait for anything: about a thousand counts a second, without
                // taking a whole core from the daemon under test.
                usleep(1000)
            }
            self.finished.signal()
        }
        thread.name = "descriptor-watch"
        thread.start()
    }

    /// The most descriptors seen so far, and in how many samples.
    var seen: (most: Int, samples: Int) { state.withLock { ($0.most, $0.samples) } }

    /// Stops counting (waiting for the thread's last count); returns the most seen and the number
    /// of samples.
    @discardableResult
    func stop() -> (most: Int, samples: Int) {
        let first = state.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        if first { finished.wait() }
        return seen
    }
}
