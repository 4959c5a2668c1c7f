import Foundation
import ISO7816
import PassTapCore
import Synchronization

/// The world a fake reader sees, driven by a test: a card comes and goes, the reader fails or
/// is taken by another process. Only for unit tests of the shared reader lifecycle; backends
/// are tested against real pcscd and vpcd.
final class FakeReaderWorld: Sendable {
    struct State {
        /// The card in the field, if any, with a number that changes on every arrival.
        var card: (number: Int, info: CardInfo, target: TargetKind)?
        var arrivals = 0
        /// Faults the next opens throw, in order.
        var openFaults: [ReaderFault] = []
        /// A fault the next wait returns.
        var waitFault: ReaderFault?
        /// A fault every wait returns while it is set (another process holding the reader).
        var persistentFault: ReaderFault?
        var woken = false
        var stopped = false
        var opens = 0
        var wakes = 0
        var endedTaps: [Bool] = []
        /// Every command any card of this world received, in order.
        var received: [[UInt8]] = []
    }

    let state = Mutex(State())
    private let condition = NSCondition()
    /// How long a wait lasts when nothing happens (a backend's wait slice).
    let slice: Double

    init(slice: Double = 60) {
        self.slice = slice
    }

    func change(_ body: (inout State) -> Void) {
        state.withLock { body(&$0) }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    func insert(_ info: CardInfo = CardInfo(atr: "3B8180018080", uid: "04A1B2C3"), target: TargetKind = .isoDep) {
        change { state in
            state.arrivals += 1
            state.card = (state.arrivals, info, target)
        }
    }

    func remove() { change { $0.card = nil } }

    /// Blocks until `ready` holds or the slice passes; returns whether it holds.
    func wait(until ready: (State) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: slice)
        condition.lock()
        defer { condition.unlock() }
        while !state.withLock({ ready($0) }) {
            guard condition.wait(until: deadline) else { return state.withLock { ready($0) } }
        }
        return true
    }
}

/// The verbs of a fake reader, over a ``FakeReaderWorld``.
final class FakeReaderPort: ReaderPort {
    let world: FakeReaderWorld

    init(world: FakeReaderWorld) {
        self.world = world
    }

    func open() throws(ReaderFault) -> any ReaderDriver {
        let fault: ReaderFault? = world.state.withLock { state in
            state.opens += 1
            return state.openFaults.isEmpty ? nil : state.openFaults.removeFirst()
        }
        if let fault { throw fault }
        return FakeReaderDriver(world: world)
    }

    func wake() {
        world.change {
            $0.woken = true
            $0.wakes += 1
        }
    }

    func stop() {
        world.change { $0.stopped = true }
    }
}

/// A fake reader opened for its thread.
final class FakeReaderDriver: ReaderDriver {
    let world: FakeReaderWorld
    private var served = 0

    init(world: FakeReaderWorld) {
        self.world = world
    }

    /// Whether no wait was made yet: like `SCardGetStatusChange` from an unaware state, the first
    /// wait reports the reader's state at once.
    private var fresh = true

    func waitForCard() -> CardWait {
        let served = self.served
        if fresh {
            fresh = false
        } else {
            _ = world.wait { $0.woken || $0.stopped || $0.waitFault != nil || ($0.card.map { $0.number != served } ?? false) }
        }
        return world.state.withLock { state in
            state.woken = false
            if let fault = state.persistentFault { return .failed(fault) }
            if let fault = state.waitFault {
                state.waitFault = nil
                return .failed(fault)
            }
            guard let card = state.card, card.number != served else { return .idle }
            self.served = card.number
            return .card(Tap(card: card.info, target: card.target, channel: FakeChannel(world: world)))
        }
    }

    func waitForRemoval() -> PresenceWait {
        let served = self.served
        _ = world.wait { $0.woken || $0.stopped || $0.waitFault != nil || $0.card?.number != served }
        return world.state.withLock { state in
            state.woken = false
            if let fault = state.waitFault {
                state.waitFault = nil
                return .failed(fault)
            }
            return state.card?.number == served ? .present : .removed
        }
    }

    func endTap(stopping: Bool) {
        world.change { $0.endedTaps.append(stopping) }
    }
}

/// The fake card's channel: answers every command `90 00` with the command's INS echoed.
final class FakeChannel: CardChannel {
    let world: FakeReaderWorld
    let capacity = ChannelCapacity(maxCommandBytes: 261, maxAnswerBytes: 263)

    init(world: FakeReaderWorld) {
        self.world = world
    }

    func transmit(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        world.change { $0.received.append(command) }
        return [command.count > 1 ? command[1] : 0, 0x90, 0x00]
    }
}

/// Every event published, with waits that end with a failure after a time limit.
final class EventRecorder: Sendable {
    private let entries = Mutex<[(kind: EventKind, reader: ReaderID?, payload: EventPayload)]>([])
    private let condition = NSCondition()

    var sink: EventSink {
        EventSink { kind, reader, payload in
            self.entries.withLock { $0.append((kind, reader, payload)) }
            self.condition.lock()
            self.condition.broadcast()
            self.condition.unlock()
        }
    }

    var kinds: [EventKind] { entries.withLock { $0.map(\.kind) } }

    var payloads: [EventPayload] { entries.withLock { $0.map(\.payload) } }

    struct Timeout: Error, CustomStringConvertible {
        let description: String
    }

    /// Waits, off the cooperative pool, until `count` events of `kind` were published.
    func wait(for kind: EventKind, count: Int = 1, seconds: Double = 10) async throws {
        try await waitForKinds("\(count) \(kind.rawValue)", seconds: seconds) { $0.filter { $0 == kind }.count >= count }
    }

    /// Waits, off the cooperative pool, until the published kinds satisfy `ready` (woken by each
    /// event, not polled); throws after `seconds`.
    func waitForKinds(_ what: String, seconds: Double = 10, _ ready: @escaping @Sendable ([EventKind]) -> Bool) async throws {
        let met = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            Thread {
                let deadline = Date(timeIntervalSinceNow: seconds)
                self.condition.lock()
                defer { self.condition.unlock() }
                while !ready(self.kinds) {
                    guard self.condition.wait(until: deadline) else { break }
                }
                continuation.resume(returning: ready(self.kinds))
            }.start()
        }
        guard met else { throw Timeout(description: "no \(what) within \(seconds) s; published: \(kinds.map(\.rawValue))") }
    }
}

/// A tap handler that records taps and can hold the reader's thread until released.
final class GatedTapHandler: TapHandler {
    private let state = Mutex<(taps: [CardInfo], holding: Bool, inside: Bool)>(([], false, false))
    private let gate = NSCondition()

    init(holding: Bool = false) {
        state.withLock { $0.holding = holding }
    }

    var taps: [CardInfo] { state.withLock { $0.taps } }
    var isInside: Bool { state.withLock { $0.inside } }

    func handleTap(reader: ReaderID, tap: Tap) {
        gate.lock()
        state.withLock {
            $0.taps.append(tap.card)
            $0.inside = true
        }
        gate.broadcast()
        while state.withLock({ $0.holding }) { gate.wait() }
        state.withLock { $0.inside = false }
        gate.unlock()
    }

    func release() {
        gate.lock()
        state.withLock { $0.holding = false }
        gate.broadcast()
        gate.unlock()
    }
}
