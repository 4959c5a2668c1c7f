import ISO7816
import PassTapCore
import PassTapTestSupport
import Testing

/// `pass.read`'s (and `vas.read`'s) queue: a tap answers every read waiting on its reader, asking the union of their
/// merchants; timeouts and cancellation leave nothing behind.
@Suite(.timeLimit(.minutes(1))) struct PassReadQueueTests {
    static let reader = ReaderID.pcsc("Virtual PCD 00 00")
    static let other = ReaderID.pcsc("Virtual PCD 00 01")

    static func result(_ atr: HexBytes) -> ReadResult {
        ReadResult(card: CardInfo(atr: atr, uid: nil), target: .isoDep, session: SessionOutcome())
    }

    /// Waits until `count` reads wait on `reader` (they register asynchronously, and the queue
    /// publishes no event for it: polled, within a deadline).
    func waitFor(_ count: Int, on queue: PassReadQueue, reader: ReaderID = reader) async throws {
        try? await waitUntil("\(count) reads waiting") { queue.waitingCount(on: reader) == count }
        #expect(queue.waitingCount(on: reader) == count)
    }

    @Test func withNoWaitingReadATapClaimsNothing() {
        #expect(PassReadQueue().claim(reader: Self.reader) == nil)
    }

    @Test func oneTapAnswersEveryWaitingReadAndAsksTheUnionOfTheirMerchants() async throws {
        let queue = PassReadQueue()
        let first = Task { try await queue.nextTap(on: Self.reader, merchants: ["pass.a"], timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        let second = Task { try await queue.nextTap(on: Self.reader, merchants: ["pass.b", "pass.c"], timeout: .seconds(30)) }
        try await waitFor(2, on: queue)
        #expect(queue.claim(reader: Self.other) == nil)

        let claim = try #require(queue.claim(reader: Self.reader))
        #expect(claim.count == 2)
        #expect(claim.merchants == ["pass.a", "pass.b", "pass.c"])
        #expect(queue.waitingCount(on: Self.reader) == 0)
        queue.finish(claim, with: Self.result("01"))
        #expect(try await value(of: first, "the first read's tap").card.atr == "01")
        #expect(try await value(of: second, "the second read's tap").card.atr == "01")
        #expect(queue.claim(reader: Self.reader) == nil)
    }

    @Test func aReadWithoutMerchantsMakesTheTapAskEveryMerchant() async throws {
        let queue = PassReadQueue()
        let narrow = Task { try await queue.nextTap(on: Self.reader, merchants: ["pass.b"], timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        let all = Task { try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(2, on: queue)
        let claim = try #require(queue.claim(reader: Self.reader))
        #expect(claim.merchants == nil)
        queue.finish(claim, with: Self.result("02"))
        #expect(try await value(of: narrow, "the narrow read's tap").card.atr == "02")
        #expect(try await value(of: all, "the unfiltered read's tap").card.atr == "02")
    }

    @Test func aReadThatArrivesAfterTheClaimWaitsForTheNextTap() async throws {
        let queue = PassReadQueue()
        let first = Task { try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        let tap1 = try #require(queue.claim(reader: Self.reader))
        let later = Task { try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        queue.finish(tap1, with: Self.result("01"))
        #expect(try await value(of: first, "the first read's tap").card.atr == "01")
        #expect(queue.waitingCount(on: Self.reader) == 1)
        let tap2 = try #require(queue.claim(reader: Self.reader))
        queue.finish(tap2, with: Self.result("02"))
        #expect(try await value(of: later, "the later read's tap").card.atr == "02")
    }

    @Test func aReadWithNoTapTimesOutAndIsGone() async throws {
        let queue = PassReadQueue()
        await #expect(throws: PassReadQueue.WaitError.timeout) {
            try await withDeadline("the 50 ms read to time out") {
                try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .milliseconds(50))
            }
        }
        #expect(queue.waitingCount(on: Self.reader) == 0)
        #expect(queue.claim(reader: Self.reader) == nil)
    }

    /// Memory cards and tags cannot answer a read: it keeps waiting, and its timeout counts them,
    /// so that the caller learns that taps came (`pass-read --wait` says tags do not count).
    @Test func tagsPassAReadOverAndItsTimeoutCountsThem() async throws {
        let (fired, fire) = AsyncStream<Void>.makeStream()
        let queue = PassReadQueue(timer: { _, end in
            for await _ in fired {
                end()
                return
            }
        })
        let read = Task { try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        queue.skip(reader: Self.reader)
        queue.skip(reader: Self.other)
        queue.skip(reader: Self.reader)
        #expect(queue.waitingCount(on: Self.reader) == 1)
        fire.yield()
        await #expect(throws: PassReadQueue.WaitError.skippedOnly(2)) { try await value(of: read, "the timed-out read") }
        #expect(queue.waitingCount(on: Self.reader) == 0)
    }

    @Test func aCancelledReadIsGoneAndTheNextTapGoesToTheNextRead() async throws {
        let queue = PassReadQueue()
        let cancelled = Task { try await queue.nextTap(on: Self.reader, merchants: ["gone"], timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        cancelled.cancel()
        await #expect(throws: PassReadQueue.WaitError.cancelled) { try await value(of: cancelled, "the cancelled read") }
        #expect(queue.waitingCount(on: Self.reader) == 0)
        let next = Task { try await queue.nextTap(on: Self.reader, merchants: ["next"], timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        let claim = try #require(queue.claim(reader: Self.reader))
        #expect(claim.merchants == ["next"])
        queue.finish(claim, with: Self.result("03"))
        #expect(try await value(of: next, "the next read's tap").card.atr == "03")
    }

    @Test func aTimeoutThatFiresAfterTheClaimGetsTheTapsResultNotTimeout() async throws {
        let cue = CuedTimer()
        let queue = PassReadQueue(timer: cue.timer)
        let read = Task { try await queue.nextTap(on: Self.reader, merchants: ["pass.a"], timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        let claim = try #require(queue.claim(reader: Self.reader))
        try await withDeadline("the cued timeout to be handled") { await cue.fire() }  // runs to its end mid-tap
        queue.finish(claim, with: Self.result("04"))
        #expect(try await value(of: read, "the read's tap").card.atr == "04")
        #expect(queue.waitingCount(on: Self.reader) == 0)
    }

    @Test func aClaimedReadWhoseCallerGoesAwayEndsAtOnceWithoutWaitingForTheTap() async throws {
        // The tap's thread may be stuck on a card that never answers: shutdown must not wait for it.
        let queue = PassReadQueue()
        let read = Task { try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        let claim = try #require(queue.claim(reader: Self.reader))
        read.cancel()
        await #expect(throws: PassReadQueue.WaitError.cancelled) { try await read.value }
        // The tap ends later; its result has no one to go to, and nothing breaks.
        queue.finish(claim, with: Self.result("05"))
        #expect(queue.waitingCount(on: Self.reader) == 0)
    }

    @Test func aTimeoutThatFiresBeforeAnyTapRemovesTheReadAtOnce() async throws {
        let cue = CuedTimer()
        let queue = PassReadQueue(timer: cue.timer)
        let read = Task { try await queue.nextTap(on: Self.reader, merchants: nil, timeout: .seconds(30)) }
        try await waitFor(1, on: queue)
        try await withDeadline("the cued timeout to be handled") { await cue.fire() }
        await #expect(throws: PassReadQueue.WaitError.timeout) { try await value(of: read, "the timed-out read") }
        #expect(queue.waitingCount(on: Self.reader) == 0)
        #expect(queue.claim(reader: Self.reader) == nil)
    }
}

/// A timeout that fires when the test says so, for one read: ``fire()`` lets it go and returns
/// once the queue has handled it.
struct CuedTimer: Sendable {
    private let go = AsyncStream<Void>.makeStream()
    private let done = AsyncStream<Void>.makeStream()

    /// The timer to give the queue.
    var timer: PassReadQueue.Timer {
        { [go, done] _, fire in
            var cue = go.stream.makeAsyncIterator()
            guard await cue.next() != nil else { return }  // cancelled: the read ended first
            fire()
            done.continuation.yield()
        }
    }

    /// Fires the timeout and waits until the queue has handled it.
    func fire() async {
        go.continuation.yield()
        var handled = done.stream.makeAsyncIterator()
        _ = await handled.next()
    }
}
