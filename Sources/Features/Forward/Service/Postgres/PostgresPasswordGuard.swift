import NIOCore
import NIOSSL

/// Watches what a PostgreSQL server sends before the login succeeds, on a connection whose server
/// no certificate has proven (`tls = "disable"`, or `"require"` without `ca_file`, over TCP), and
/// closes the connection before postgres-nio answers a request for the password in cleartext or
/// as an MD5 hash. postgres-nio sends either to whoever asks, with no option to refuse; a forged
/// server (a process holding the port, or anyone on the network path) would collect it.
///
/// SCRAM-SHA-256 (PostgreSQL's default since 14) goes on: the password itself never crosses the
/// wire, and the server must prove it knows the password's verifier.
///
/// The backend messages, from the PostgreSQL protocol ("Message Formats"):
///
/// ```
/// SSLRequest answer       'S' or 'N', one byte (only when TLS was asked for)
/// message                 Byte1 type, Int32 length (itself and the body), body
/// Authentication          'R', Int32 length, Int32 code: 0 ok, 3 cleartext password,
///                         5 MD5 password (+ Int32 salt), 10 SASL, 11/12 SASL continue/final
/// ```
///
/// The handler sits first in the pipeline. On `'S'`, once postgres-nio has put its TLS handler in
/// after it, a new guard takes its place behind the TLS handler, where the bytes are plaintext.
/// It forwards every message unchanged, holding back at most an Authentication message's first
/// nine bytes until it knows its code, and leaves the pipeline at `AuthenticationOk`.
final class PostgresPasswordGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private enum State {
        /// TLS was asked for: the next byte is the server's one-byte answer.
        case awaitingTLSAnswer
        /// Reading messages until `AuthenticationOk`.
        case authenticating
        /// Done (the login succeeded, or a guard behind TLS took over): leaving the pipeline,
        /// everything goes on unchanged.
        case passing
        /// Refused: the connection is closing, nothing more goes on.
        case refused
    }

    private var state: State
    /// Bytes received and not yet passed on.
    private var pending = ByteBuffer()
    /// Bytes of the current message still to pass on without looking at them.
    private var rest = 0

    /// A guard for a connection that asks for TLS (`tlsRequested`) or not.
    init(tlsRequested: Bool) {
        state = tlsRequested ? .awaitingTLSAnswer : .authenticating
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .passing:
            context.fireChannelRead(data)
        case .refused:
            return
        case .awaitingTLSAnswer, .authenticating:
            var input = unwrapInboundIn(data)
            pending.writeBuffer(&input)
            process(context: context)
        }
    }

    private func process(context: ChannelHandlerContext) {
        while true {
            if rest > 0 {
                let count = min(rest, pending.readableBytes)
                guard count > 0, let slice = pending.readSlice(length: count) else { return }
                rest -= count
                context.fireChannelRead(wrapInboundOut(slice))
                continue
            }
            switch state {
            case .passing, .refused:
                return
            case .awaitingTLSAnswer:
                guard let answer = pending.readSlice(length: 1) else { return }
                let accepted = answer.getInteger(at: answer.readerIndex, as: UInt8.self) == UInt8(ascii: "S")
                context.fireChannelRead(wrapInboundOut(answer))
                guard accepted else {
                    state = .authenticating  // postgres-nio refuses a server without TLS
                    continue
                }
                return moveBehindTLS(context: context)
            case .authenticating:
                guard pending.readableBytes >= 5,
                    let type = pending.getInteger(at: pending.readerIndex, as: UInt8.self),
                    let length = pending.getInteger(at: pending.readerIndex + 1, as: Int32.self)
                else { return }
                if type == UInt8(ascii: "R"), length >= 8 {
                    guard let code = pending.getInteger(at: pending.readerIndex + 5, as: Int32.self) else { return }
                    if let refusal = PostgresPasswordRefusal(code: code) { return refuse(refusal, context: context) }
                    if code == 0 { return leave(context: context) }
                }
                // A malformed length is postgres-nio's to report: pass the rest on as it comes.
                rest = length >= 4 ? 1 + Int(length) : Int.max
            }
        }
    }

    /// The server answered `'S'` and postgres-nio put its TLS handler in after this one: a new
    /// guard watches behind it; what else came with the answer goes on to TLS.
    private func moveBehindTLS(context: ChannelHandlerContext) {
        state = .passing
        let pipeline = context.pipeline.syncOperations
        do {
            let tls = try pipeline.handler(type: NIOSSLClientHandler.self)
            try pipeline.addHandler(PostgresPasswordGuard(tlsRequested: false), position: .after(tls))
        } catch {
            // Without a place behind TLS nothing can be watched: fail closed.
            state = .refused
            context.fireErrorCaught(PostgresPasswordRefusal.unwatchable)
            context.close(promise: nil)
            return
        }
        if pending.readableBytes > 0 {
            let leftover = pending
            pending.clear()
            context.fireChannelRead(wrapInboundOut(leftover))
        }
        pipeline.removeHandler(context: context, promise: nil)
    }

    /// The login succeeded: everything held goes on, and the guard leaves the pipeline.
    private func leave(context: ChannelHandlerContext) {
        state = .passing
        if pending.readableBytes > 0 {
            let held = pending
            pending.clear()
            context.fireChannelRead(wrapInboundOut(held))
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// The server asked for the password in a form an impostor could use: the request never
    /// reaches postgres-nio, the connection closes, and the delivery fails with `refusal`.
    private func refuse(_ refusal: PostgresPasswordRefusal, context: ChannelHandlerContext) {
        state = .refused
        pending.clear()
        context.fireErrorCaught(refusal)
        context.close(promise: nil)
    }
}

/// Why ``PostgresPasswordGuard`` closed a connection: `forward.status`'s `auth` class.
struct PostgresPasswordRefusal: Error, Hashable, CustomStringConvertible {
    /// What the server asked for, or why nothing could be watched.
    let what: String

    /// The refusal for Authentication request `code`; `nil` for a request passtapd answers.
    init?(code: Int32) {
        switch code {
        case 3: what = "the password in cleartext (AuthenticationCleartextPassword)"
        case 5: what = "an MD5 hash of the password (AuthenticationMD5Password)"
        default: return nil
        }
    }

    private init(what: String) {
        self.what = what
    }

    /// postgres-nio did not put a TLS handler in where one was expected.
    static let unwatchable = PostgresPasswordRefusal(what: "TLS, but no TLS handler came up to watch the login behind")

    var description: String {
        "the server asked for \(what), and no certificate proves it is the configured server: the password was not sent. Use scram-sha-256 for this role (password_encryption = 'scram-sha-256', then set the password again), set tls = \"verify-full\" (or a ca_file with tls = \"require\"), or connect over the Unix socket (host = \"/run/postgresql\")"
    }
}
