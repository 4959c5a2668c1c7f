import Foundation
import NIOCore
import NIOPosix
import PassTapProtocol

/// One connection to `passtapd`'s socket: JSON lines out, JSON lines in.
///
/// The CLI opens it, sends requests and reads answers and notifications in order; nothing here
/// knows method names (those are in `PassTapProtocol`).
struct RPCConnection {
    /// The longest line the CLI accepts from the daemon (a `read.result` is a few KiB).
    static let maximumLineBytes = 1 << 20

    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator

    /// Connects to the socket at `path`, checks that `daemon` accepts the user serving it, and
    /// runs `body` with the connection, closing it after.
    ///
    /// The check comes before `body`, so nothing is sent to a server that fails it.
    /// - Throws: ``CLIError/untrustedServer(path:credentials:expected:detail:)`` for a server
    ///   `daemon` does not accept (or whose credentials cannot be read).
    static func withConnection<Result: Sendable>(
        to path: String,
        daemon: DaemonIdentity,
        _ body: (inout RPCConnection) async throws -> Result
    ) async throws -> Result {
        let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        do {
            channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: path) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(NDJSONLineDecoder(), maximumBufferSize: maximumLineBytes))
                        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw CLIError.connect(path: path, underlying: error)
        }
        do {
            let credentials: PeerCredentials
            do {
                credentials = try await PeerCredentials.read(from: channel.channel)
            } catch {
                throw CLIError.untrustedServer(path: path, credentials: nil, expected: daemon.expected, detail: "\(error)")
            }
            guard daemon.accepts(credentials) else {
                throw CLIError.untrustedServer(path: path, credentials: credentials, expected: daemon.expected, detail: nil)
            }
        } catch {
            try? await channel.channel.close()
            throw error
        }
        return try await channel.executeThenClose { inbound, outbound in
            var connection = RPCConnection(outbound: outbound, inbound: inbound.makeAsyncIterator())
            return try await body(&connection)
        }
    }

    /// Sends one JSON object (already encoded, without newline) as a line.
    func send(_ json: Data) async throws {
        var buffer = ByteBuffer(bytes: json)
        buffer.writeInteger(UInt8(ascii: "\n"))
        try await outbound.write(buffer)
    }

    /// The next line from the daemon, or `nil` when it closed the connection.
    mutating func receive() async throws -> Data? {
        guard let buffer = try await inbound.next() else { return nil }
        return Data(buffer.readableBytesView)
    }
}
