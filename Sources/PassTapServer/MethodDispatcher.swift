import ForwardSettings
import WebSettings
import Foundation
import ISO7816
import Logging
import NIOCore
import PassTapCore
import PassTapProtocol
import SmartTapSettings
import VASSettings

/// Turns one request line into its answer: checks the JSON-RPC envelope, finds the method's
/// handler in a table, checks the connection's role, decodes the params (absent params as `{}`,
/// so a missing required member is named) and encodes the handler's answer.
///
/// Everything a client can get wrong becomes a JSON-RPC error on the same connection; nothing
/// here closes it.
///
/// It also gives the subscribers their notification lines (``notificationLine(for:view:)``).
package struct MethodDispatcher: Sendable {
    /// What the connection should do after a line.
    package enum Outcome {
        /// Send this line.
        case reply(ByteBuffer)
        /// Send nothing (a blank line, or a client notification).
        case silent
        /// Send the reply (if the request had an id), then start pumping the subscription.
        case subscribed(reply: ByteBuffer?, EventSubscription)
    }

    /// The handlers, by method.
    let handlers: [RPCMethod: any MethodHandler]
    /// Told of every `events.dropped` notice (the metrics recorder).
    let observer: SocketServerObserver

    /// The dispatcher of a daemon: one handler per method, each reading what it needs from `live`
    /// at each request (so a reload applies to the next one).
    /// `clock` is the clock `status` reads its uptime from (the fuzz target injects one).
    /// `methods` are the feature slices' own (``FeatureSlice/methods``: `forward.*`), after the
    /// core ones; a method a slice repeats keeps the core handler.
    package init(
        hub: EventHub, backends: ReaderBackends, vasReads: PassReadQueue, daemon: DaemonInfo, live: LiveConfiguration,
        clock: DaemonClock = .system, health: HealthSources = HealthSources(),
        observer: SocketServerObserver = .none, methods: [any MethodHandler] = []
    ) {
        // Each reader with its taps by outcome (when there is a ledger to count them) and what
        // the slices' reader hooks say of it.
        let readers: @Sendable () -> [ReaderInfo] = {
            health.readerHooks.describing(health.ledger?.counting(backends.readers()) ?? backends.readers())
        }
        // pass.read and its old name vas.read: one count of waiting reads for both.
        let walletMerchants: @Sendable () -> [String]? = {
            // Smart Tap alone answers a wallet read too, with no merchant to name.
            let configuration = live.current
            if configuration.vas.enabled { return configuration.vas.passTypeIDs }
            return configuration.smartTap.enabled ? [] : nil
        }
        let walletReads = PendingVASReads { owner in
            switch owner {
            case .uid: return live.current.socket.vasReadsPerUID
            case .token: return live.current.web.vasReadsPerToken
            }
        }
        let knows: @Sendable (ReaderID) -> Bool = { backends.knows($0) }
        let handlers: [any MethodHandler] = [
            StatusHandler(daemon: daemon, readers: readers, clock: clock, health: health),
            ReadersListHandler(readers: readers),
            CardTransmitHandler(allowed: { live.current.socket.allowTransmit }) { command, raw, reader throws(ReaderCommandError) in
                try await backends.transmit(command, raw: raw, on: reader)
            },
            PassReadHandler(merchants: walletMerchants, vasReads: vasReads, pending: walletReads, knows: knows),
            VASReadHandler(merchants: walletMerchants, vasReads: vasReads, pending: walletReads, knows: knows),
            EventsSubscribeHandler(hub: hub, daemon: daemon, queueLimit: { live.current.events.clientQueue }),
        ] + methods
        self.init(handlers: handlers, observer: observer)
    }

    /// A dispatcher for `handlers` (tests give their own).
    init(handlers: [any MethodHandler], observer: SocketServerObserver = .none) {
        self.observer = observer
        self.handlers = Dictionary(handlers.map { (type(of: $0).method, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Answers one line (without its newline) for a connection holding `roles`.
    package func handle(line: ByteBuffer, alreadySubscribed: Bool, roles: Set<AccessRole> = Set(AccessRole.allCases)) async -> Outcome {
        await handle(line: line, context: RequestContext(roles: roles, alreadySubscribed: alreadySubscribed), audit: nil)
    }

    /// Answers one line (without its newline) in `context`; methods that act on a card write
    /// their audit line to `audit`.
    func handle(line: ByteBuffer, context: RequestContext, audit: Logger?) async -> Outcome {
        let bytes = Data(line.readableBytesView)
        guard bytes.contains(where: { !Self.isJSONWhitespace($0) }) else { return .silent }
        let envelope: JSONRPCEnvelope
        switch JSONRPCEnvelope.decodeRequestLine(bytes) {
        case .success(let decoded): envelope = decoded
        case .failure(let error): return errorLine(id: .null, error)
        }
        let method: String
        switch envelope.requestMethod() {
        case .success(let name): method = name
        case .failure(let error): return errorLine(id: envelope.id ?? .null, error)
        }
        guard let known = RPCMethod(rawValue: method), let handler = handlers[known] else {
            // `/rpc` took its handshake before the dispatcher saw any line (see `WebAuthentication`).
            if [WebAuthentication.helloMethod, WebAuthentication.proveMethod].contains(method), case .web = context.peer {
                return respond(envelope.id, MethodReply<JSONRPCNoResult>.failure(.alreadyAuthenticated))
            }
            return respond(envelope.id, MethodReply<JSONRPCNoResult>.failure(.methodNotFound(method)))
        }
        return await run(handler, id: envelope.id, bytes: bytes, context: context, audit: audit)
    }

    /// Checks the role, decodes the params and runs one handler.
    private func run<Handler: MethodHandler>(
        _ handler: Handler, id: JSONRPCID?, bytes: Data, context: RequestContext, audit: Logger?
    ) async -> Outcome {
        let decoded = decodeParams(Handler.Params.self, Handler.method, from: bytes)
        // Audited methods leave their line whatever the outcome, refusals included.
        func audited<Output>(_ reply: MethodReply<Output>) -> MethodReply<Output> {
            if let audit, Handler.isAudited {
                let target = (try? decoded.get()).flatMap(Handler.auditedTarget(of:))
                Self.writeAudit(
                    to: audit, method: Handler.method, target: (Handler.auditedTargetKey, target), peer: context.peer, outcome: reply.outcome)
            }
            return reply
        }
        guard context.roles.contains(Handler.role) else {
            return respond(
                id, audited(MethodReply<JSONRPCNoResult>.failure(.forbidden(method: Handler.method.rawValue, role: Handler.role.rawValue))))
        }
        switch decoded {
        case .failure(let error):
            return respond(id, audited(MethodReply<JSONRPCNoResult>.failure(error)))
        case .success(let params):
            return respond(id, audited(await handler.handle(params, context: context)))
        }
    }

    /// One line per audited call: who (uid and pid, or a web token's name and Origin, never its
    /// secret), which reader (`audit.reader`) or forwarding sink (`audit.sink`), which method, and
    /// the outcome; never an APDU, a response or a pass message.
    /// Written at notice, and never filtered out: a `[log] level` above notice is lowered to
    /// notice for these lines only.
    private static func writeAudit(
        to logger: Logger, method: RPCMethod, target: (key: String, value: String?), peer: ClientPeer, outcome: String
    ) {
        var logger = logger
        if logger.logLevel > .notice { logger.logLevel = .notice }
        let call: Logger.Metadata = [
            "audit.method": "\(method.rawValue)", target.key: "\(target.value ?? "-")", "audit.outcome": "\(outcome)",
        ]
        logger.notice("audit", metadata: call.merging(peer.logMetadata) { first, _ in first })
    }

    /// The line for one subscription item, for a subscriber with `view`: an `event` notification,
    /// the line the hub encoded when it published the event, shared by every subscriber of that
    /// view (the `ByteBuffer`'s storage included), or an `events.dropped` notification of its own.
    func notificationLine(for item: SubscriptionItem, view: EventView) -> ByteBuffer {
        switch item {
        case .event(let published):
            return published.notificationLine(for: view)
        case .dropped(let count, let firstSeq, let lastSeq):
            observer.eventsDropped(count)
            return Self.encode(
                JSONRPCNotification(
                    method: .eventsDropped, params: EventsDroppedParams(count: count, firstSeq: firstSeq, lastSeq: lastSeq)))
        }
    }

    // MARK: Encoding

    /// The params, decoded as the handler's type; absent params are decoded as `{}`, so required
    /// members are checked here too.
    private func decodeParams<Params: Decodable & Sendable>(
        _ type: Params.Type, _ method: RPCMethod, from bytes: Data
    ) -> Result<Params, JSONRPCError> {
        do {
            if let params = try NDJSON.decode(JSONRPCRequest<Params>.self, from: bytes).params { return .success(params) }
            return .success(try NDJSON.decode(Params.self, from: Data("{}".utf8)))
        } catch let error as DecodingError {
            return .failure(.invalidParams(method: method.rawValue, Self.paramsErrorDetail(error)))
        } catch {
            return .failure(.invalidParams(method: method.rawValue, "\(error)"))
        }
    }

    private func respond<Output: Encodable & Sendable>(_ id: JSONRPCID?, _ reply: MethodReply<Output>) -> Outcome {
        switch reply {
        case .result(let output):
            guard let id else { return .silent }  // a client notification gets no answer, errors included
            return .reply(Self.encode(JSONRPCResponse(id: id, outcome: Result<Output, JSONRPCError>.success(output))))
        case .failure(let error):
            guard let id else { return .silent }
            return .reply(Self.encode(JSONRPCResponse(id: id, outcome: Result<Output, JSONRPCError>.failure(error))))
        case .subscribed(let output, let subscription):
            guard let id else { return .subscribed(reply: nil, subscription) }
            return .subscribed(reply: Self.encode(JSONRPCResponse(id: id, outcome: Result<Output, JSONRPCError>.success(output))), subscription)
        }
    }

    func errorLine(id: JSONRPCID, _ error: JSONRPCError) -> Outcome {
        .reply(Self.encode(JSONRPCResponse<JSONRPCNoResult>(id: id, error: error)))
    }

    static func encode<Value: Encodable>(_ value: Value) -> ByteBuffer {
        do {
            return try NDJSON.encodeLine(value)
        } catch {
            // Our own types always encode; should one not, the client still gets a well-formed answer.
            let fallback = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"the daemon could not encode its answer","data":{"reason":"internal_error"}}}"#
            return ByteBuffer(string: fallback + "\n")
        }
    }

    static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func paramsErrorDetail(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).filter { $0 != "params" }
            return keys.isEmpty ? "params" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, _):
            return "missing parameter '\(key.stringValue)'"
        case .typeMismatch(let type, let context):
            return "\(path(context)) must be \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) must be \(typeName(type)), not null"
        case .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is UInt64.Type: return "a whole number >= 0"
        case is Int.Type: return "a whole number"
        case is [String].Type, is [Any].Type: return "an array"
        case is [String: Any].Type: return "an object with named members"
        default: return "a JSON value of another type"
        }
    }
}
