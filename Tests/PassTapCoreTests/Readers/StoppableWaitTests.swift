import Foundation
@testable import PassTapCore
import Synchronization
import Testing

/// The one stoppable pause of the reader threads: a signal ends one pause, a stop every pause, and
/// the wait for a condition outlasts a stop.
@Suite(.timeLimit(.minutes(1))) struct StoppableWaitTests {
    @Test func aSignalEndsOnePauseOnly() {
        let wait = StoppableWait()
        wait.signal()
        // The signal came first: the pause ends at once, however long it was to be.
        #expect(!wait.pause(for: .seconds(3600)))
        // Used up: this one runs to its deadline, which has passed.
        #expect(wait.pause(until: .now))
    }

    @Test func stopEndsAPauseUnderWayAndEveryLaterOne() async {
        let wait = StoppableWait()
        let ended = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { continuation.resume(returning: wait.pause(for: .seconds(3600))) }.start()
            wait.stop()
        }
        #expect(!ended)
        #expect(wait.isStopped)
        #expect(!wait.pause(for: .seconds(3600)))
    }

    @Test func theWaitForAConditionOutlastsAStopAndLooksAgainAtEverySignal() async {
        let wait = StoppableWait()
        wait.stop()
        let done = Mutex(false)
        #expect(!wait.wait(until: .now) { done.withLock { $0 } })
        let held = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread { continuation.resume(returning: wait.wait(until: .now + .seconds(3600)) { done.withLock { $0 } }) }.start()
            done.withLock { $0 = true }
            wait.signal()
        }
        #expect(held)
    }
}
