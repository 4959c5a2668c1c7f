import Foundation
import NIOCore
import NIOPosix
import PassTapProtocol
import PassTapTestSupport
import Synchronization

/// A test client of the socket that splits the server's output into lines itself (so the tests
/// check the server's framing rather than trust a shared decoder). Every read has a deadline.
struct LineClient {
    /// How long a read waits for the server by default: its answers take milliseconds.
    static let readTimeout: Duration = .seconds(10)

    private let channel: any Channel
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private var pending = ByteBuffer()

    /// Connects to `path` and runs `body`, closing the connection afterwards.
    static func with<Result: Sendable>(
        path: String, _ body: (inout LineClient) async throws -> Result
    ) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(unixDomainSocketPath: path) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { [underlying = channel.channel] inbound, outbound in
            var client = LineClient(channel: underlying, outbound: outbound, inbound: inbound.makeAsyncIterator())
            return try await body(&client)
        }
    }

    /// Sends `text` followed by a newline.
    func send(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text + "\n"))
    }

    /// Sends bytes exactly as given.
    func sendRaw(_ bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    /// Ends the client's input to the server (`shutdown(SHUT_WR)`, as `socat` and `nc -N` do at the
    /// end of their standard input) and goes on reading.
    func closeOutput() async throws {
        try await channel.close(mode: .output)
    }

    /// Closes the client's reading side (`shutdown(SHUT_RD)`): the server's writes fail from then on.
    func closeInput() async throws {
        try await channel.close(mode: .input)
    }

    /// The next line without its newline, or `nil` once the server closed the connection.
    /// Throws ``DeadlineExceeded`` (and closes the connection) when no whole line came within
    /// `timeout`.
    mutating func readLine(timeout: Duration = Self.readTimeout, waitingFor what: String = "a line from the server") async throws
        -> String?
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = pending.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let length = newline - pending.readerIndex
                let line = pending.readString(length: length) ?? ""
                pending.moveReaderIndex(forwardBy: 1)
                return line
            }
            guard var chunk = try await nextChunk(before: deadline, timeout: timeout, what: what) else {
                return nil
            }
            pending.writeBuffer(&chunk)
        }
    }

    /// The next bytes from the server, or `nil` once it closed. The iterator may not leave this
    /// task, so the wait is raced here: a timer closes the connection at the deadline, which
    /// ends the wait, and the read then throws ``DeadlineExceeded``.
    private mutating func nextChunk(before deadline: ContinuousClock.Instant, timeout: Duration, what: String) async throws
        -> ByteBuffer?
    {
        let expired = Expiry()
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { [channel] in
                try? await Task.sleep(until: deadline)
                guard !Task.isCancelled else { return }
                expired.mark()
                channel.close(promise: nil)
            }
            defer { group.cancelAll() }
            let chunk: ByteBuffer?
            do {
                chunk = try await inbound.next()
            } catch where expired.isMarked {
                chunk = nil
            }
            if expired.isMarked {
                throw DeadlineExceeded(what: what, seconds: Double(timeout.components.seconds))
            }
            return chunk
        }
    }

    /// The next line decoded as `type`; fails the test if the connection closed.
    mutating func read<Value: Decodable>(_ type: Value.Type) async throws -> Value {
        guard let line = try await readLine() else { throw ClosedEarly() }
        return try NDJSON.decode(type, from: Data(line.utf8))
    }

    /// Sends a request and decodes the answer as a response with `Result`.
    mutating func call<Result: Decodable & Sendable>(
        _ text: String, expecting: Result.Type = JSONRPCNoResult.self
    ) async throws -> JSONRPCResponse<Result> {
        try await send(text)
        return try await read(JSONRPCResponse<Result>.self)
    }

    /// Thrown when the server closed the connection before a line the test expected.
    struct ClosedEarly: Error {}
}

/// Set once a read's deadline passed.
private final class Expiry: Sendable {
    private let marked = Atomic(false)

    var isMarked: Bool { marked.load(ordering: .acquiring) }

    func mark() { marked.store(true, ordering: .releasing) }
}
