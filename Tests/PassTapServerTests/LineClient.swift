import Foundation
import NIOCore
import NIOPosix
import PassTapProtocol

/// A test client of the socket that splits the server's output into lines itself (so the tests
/// check the server's framing rather than trust a shared decoder).
struct LineClient {
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
        return try await channel.executeThenClose { inbound, outbound in
            var client = LineClient(outbound: outbound, inbound: inbound.makeAsyncIterator())
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

    /// The next line without its newline, or `nil` once the server closed the connection.
    mutating func readLine() async throws -> String? {
        while true {
            if let newline = pending.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) {
                let length = newline - pending.readerIndex
                let line = pending.readString(length: length) ?? ""
                pending.moveReaderIndex(forwardBy: 1)
                return line
            }
            guard var chunk = try await inbound.next() else {
                return nil
            }
            pending.writeBuffer(&chunk)
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
