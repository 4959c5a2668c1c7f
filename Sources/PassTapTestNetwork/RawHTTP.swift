import Foundation
public import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1 client of bytes, for tests of passtapd's HTTP listeners (`PassTapHTTP`): it sends
/// exactly what it is given, however malformed, and reads until the server closes.
public enum RawHTTP {
    /// A parsed answer.
    public struct Answer: Sendable {
        /// `HTTP/1.1 200 OK`.
        public var statusLine: String
        /// Header values by lowercased name (the last of a repeated name).
        public var headers: [String: String]
        /// Everything after the head.
        public var body: String

        /// Parses `raw`, a whole answer.
        public init(parsing raw: String) throws {
            let parts = raw.components(separatedBy: "\r\n\r\n")
            let head = (parts.first ?? "").components(separatedBy: "\r\n")
            guard let status = head.first, status.hasPrefix("HTTP/") else { throw NotAnAnswer(raw: raw) }
            var headers: [String: String] = [:]
            for line in head.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            statusLine = status
            self.headers = headers
            body = parts.dropFirst().joined(separator: "\r\n\r\n")
        }
    }

    /// What came back is no HTTP answer.
    public struct NotAnAnswer: Error, CustomStringConvertible {
        /// What came back.
        public var raw: String
        public var description: String { "not an HTTP answer: \(raw.debugDescription)" }
    }

    /// Sends `request` as bytes and reads until the server closes the connection.
    public static func exchange(_ request: String, with address: SocketAddress) async throws -> String {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(to: address) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        return try await channel.executeThenClose { inbound, outbound in
            if !request.isEmpty { try await outbound.write(ByteBuffer(string: request)) }
            var received = ""
            do {
                for try await var chunk in inbound { received += chunk.readString(length: chunk.readableBytes) ?? "" }
            } catch let error as ChannelError where error == .inputClosed || error == .eof {
                // Closed by the server: what we have is the whole answer.
            }
            return received
        }
    }

    /// ``exchange(_:with:)``, parsed.
    public static func answer(_ request: String, with address: SocketAddress) async throws -> Answer {
        try Answer(parsing: try await exchange(request, with: address))
    }

    /// Connects, sends `request` and returns what comes back before the server ends the
    /// connection, whether by closing it or by resetting it (a request sent to a connection the
    /// server already closed is answered with a reset, or finds it closed before it is written).
    public static func answerOrNothing(_ request: String, with address: SocketAddress) async throws -> String {
        do {
            return try await exchange(request, with: address)
        } catch let error as IOError where error.errnoCode == ECONNRESET || error.errnoCode == EPIPE {
            return ""
        } catch ChannelError.ioOnClosedChannel {
            return ""
        }
    }
}
