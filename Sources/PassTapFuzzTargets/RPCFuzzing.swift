import Dispatch
import Foundation
import ISO7816
import NIOCore
import PassTapCore
import PassTapProtocol
import PassTapServer
import Synchronization
import VAS
import VASSettings

/// `rpc`: request lines through the socket's dispatcher, as a connection hands them over, with
/// the daemon's own handlers on a fake reader backend, an event hub with a fixed wall clock, a
/// `status` uptime on a fixed monotonic clock, and `vas.read` timeouts that fire at once.
///
/// The first byte picks the connection's roles (bits 0–2: observe, read, transmit) and whether
/// it already streams a subscription (bit 3); the rest is split into lines at `\n`. Every answer
/// must be one line of at most `NDJSON.maximumLineBytes` holding one JSON-RPC 2.0 response: an
/// object with `jsonrpc` "2.0", an `id`, and exactly one of `result` and `error` (with an integer
/// `code`). A request with a string id gets that id back, and a request with an id is answered.
final class RPCFuzzing: Sendable {
    static let shared = RPCFuzzing()

    static let reader = ReaderID.pcsc("Fuzz Reader 00 00")
    let dispatcher: MethodDispatcher

    private init() {
        let wallClock = Date(timeIntervalSince1970: 1_800_000_000)
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 64, clock: DaemonClock(date: { wallClock }))
        let info = ReaderInfo(id: Self.reader, name: "Fuzz Reader 00 00", backend: "pcsc", state: .present)
        _ = hub.publish(.readerAdded, reader: Self.reader, payload: .reader(info))
        _ = hub.publish(.cardInserted, reader: Self.reader, payload: .card(SessionFuzzing.card))
        let started = ContinuousClock.now
        var configuration = Configuration()
        configuration.socket.path = "/nonexistent/fuzz.sock"
        configuration.socket.allowTransmit = true
        configuration.vas = SessionFuzzing.settings
        dispatcher = MethodDispatcher(
            hub: hub, backends: ReaderBackends([FuzzBackend(reader: info)]), vasReads: PassReadQueue(timer: { _, fire in fire() }),
            daemon: DaemonInfo(version: "0.0.0-fuzz", instance: "fuzz", started: started),
            live: LiveConfiguration(configuration),
            clock: DaemonClock(now: { started + .seconds(90) }))
    }

    func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        guard let flags = bytes.first else { return }
        let all: [AccessRole] = [.observe, .read, .transmit]
        let roles = Set(all.enumerated().filter { flags & (1 << $0.offset) != 0 }.map(\.element))
        let subscribed = flags & 0x08 != 0
        let lines = bytes.dropFirst().split(separator: 0x0A, maxSplits: 32, omittingEmptySubsequences: false)
        for line in lines {
            if let finding = answer(Array(line), roles: roles, subscribed: subscribed) { throw finding }
        }
    }

    /// Runs one line through the dispatcher on a task and waits for it on this (the fuzzer's)
    /// thread, which is not one of the concurrency pool's.
    private func answer(_ line: [UInt8], roles: Set<AccessRole>, subscribed: Bool) -> FuzzFinding? {
        let found = Mutex<FuzzFinding?>(nil)
        let done = DispatchSemaphore(value: 0)
        let dispatcher = self.dispatcher
        Task {
            let outcome = await dispatcher.handle(line: ByteBuffer(bytes: line), alreadySubscribed: subscribed, roles: roles)
            let finding: FuzzFinding?
            do throws(FuzzFinding) {
                try Self.check(outcome, for: line)
                finding = nil
            } catch {
                finding = error
            }
            found.withLock { $0 = finding }
            done.signal()
        }
        done.wait()
        return found.withLock { $0 }
    }

    private static func check(_ outcome: MethodDispatcher.Outcome, for line: [UInt8]) throws(FuzzFinding) {
        let request = try? JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed]) as? [String: Any]
        switch outcome {
        case .silent:
            let hasID = request?["id"] is String || request?["id"] is NSNumber
            try require(!hasID, "no answer to a request with an id: \(String(decoding: line, as: UTF8.self))")
        case .reply(let reply):
            try checkReply(reply, to: request)
        case .subscribed(let reply, let subscription):
            subscription.cancel()
            if let reply { try checkReply(reply, to: request) }
        }
    }

    private static func checkReply(_ buffer: ByteBuffer, to request: [String: Any]?) throws(FuzzFinding) {
        let bytes = Array(buffer.readableBytesView)
        try require(bytes.count <= NDJSON.maximumLineBytes, "an answer of \(bytes.count) bytes")
        try require(bytes.last == 0x0A && bytes.firstIndex(of: 0x0A) == bytes.count - 1, "an answer that is not one line")
        guard let reply = try? JSONSerialization.jsonObject(with: Data(bytes.dropLast())) as? [String: Any] else {
            throw FuzzFinding("an answer that is not a JSON object: \(String(decoding: bytes, as: UTF8.self))")
        }
        try require(reply["jsonrpc"] as? String == "2.0", "an answer without jsonrpc 2.0")
        try require(reply.keys.contains("id"), "an answer without an id")
        try require((reply["result"] == nil) != (reply["error"] == nil), "an answer without exactly one of result and error")
        if let error = reply["error"] {
            guard let error = error as? [String: Any], let code = error["code"] as? NSNumber, code.doubleValue == code.doubleValue.rounded(),
                error["message"] is String
            else {
                throw FuzzFinding("an error without an integer code and a message: \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        if let id = request?["id"] as? String, reply["error"] == nil || (reply["id"] as? String) != nil {
            try require(reply["id"] as? String == id, "the answer's id is not the request's \(id)")
        }
        // An integer id that fits in 64 bits comes back as the same integer.
        if let id = request?["id"] as? NSNumber, let integer = Self.integer(id), reply["error"] == nil || !(reply["id"] is NSNull) {
            let echoed = (reply["id"] as? NSNumber).flatMap(Self.integer)
            try require(echoed == integer, "the answer's id \(String(describing: reply["id"])) is not the request's \(id)")
        }
    }

    /// An NSNumber that JSONSerialization read as an integer, as its digits.
    private static func integer(_ number: NSNumber) -> String? {
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "q"), UInt8(ascii: "l"), UInt8(ascii: "i"), UInt8(ascii: "s"), UInt8(ascii: "c"): return String(number.int64Value)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"): return String(number.uint64Value)
        default: return nil
        }
    }
}

/// One reader whose card answers `90 00` to every command (`card.transmit`).
final class FuzzBackend: ReaderBackend {
    let name = ReaderID.Backend.pcsc
    let info: ReaderInfo

    init(reader: ReaderInfo) { info = reader }

    func start() {}
    func shutdown(deadline: Duration) async {}
    func readers() -> [ReaderInfo] { [info] }

    func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        guard reader == info.id else { throw .unknownReader(reader) }
        return ResponseAPDU(data: [], statusWord: StatusWord(sw1: 0x90, sw2: 0x00))
    }
}
