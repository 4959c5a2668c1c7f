import Foundation
import ISO7816
import NIOCore
import PassTapCore
import PassTapProtocol

/// Turns one request line into its answer: checks the JSON-RPC envelope, decodes the method's
/// params, calls the reader backend or the event hub, and encodes the response line.
///
/// Everything a client can get wrong becomes a JSON-RPC error on the same connection; nothing
/// here closes it.
struct MethodDispatcher: Sendable {
    /// What the connection should do after a line.
    enum Outcome {
        /// Send this line.
        case reply(ByteBuffer)
        /// Send nothing (a blank line, or a client notification).
        case silent
        /// Send the reply (if the request had an id), then start pumping the subscription.
        case subscribed(reply: ByteBuffer?, EventSubscription)
    }

    let hub: EventHub
    let backends: ReaderBackends
    let vasReads: VASReadQueue
    let daemon: DaemonInfo
    let configuration: SocketServerConfiguration

    /// Answers one line (without its newline).
    func handle(line: ByteBuffer, alreadySubscribed: Bool) async -> Outcome {
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
        let id = envelope.id
        guard let known = RPCMethod(rawValue: method) else {
            return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(.methodNotFound(method)))
        }
        switch known {
        case .status:
            return respond(id, decodeParams(NoParams.self, known, from: bytes).map { _ in status() })
        case .readersList:
            return respond(id, decodeParams(NoParams.self, known, from: bytes).map { _ in readersList() })
        case .cardTransmit:
            guard configuration.allowTransmit else {
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(Self.transmitDisabled))
            }
            switch decodeParams(CardTransmitParams.self, known, from: bytes) {
            case .failure(let error):
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(error))
            case .success(nil):
                let missing = JSONRPCError.invalidParams(method: method, "params {\"reader\", \"apdu\"} are required")
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(missing))
            case .success(let params?):
                return respond(id, await transmit(params))
            }
        case .vasRead:
            switch decodeParams(VASReadParams.self, known, from: bytes) {
            case .failure(let error):
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(error))
            case .success(nil):
                let missing = JSONRPCError.invalidParams(method: method, "params {\"reader\"} are required")
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(missing))
            case .success(let params?):
                return respond(id, await vasRead(params))
            }
        case .eventsSubscribe:
            guard !alreadySubscribed else {
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(Self.alreadySubscribed))
            }
            let subscribed = decodeParams(EventsSubscribeParams.self, known, from: bytes)
                .flatMap { subscribe($0 ?? EventsSubscribeParams()) }
            switch subscribed {
            case .failure(let error):
                return respond(id, Result<JSONRPCNoResult, JSONRPCError>.failure(error))
            case .success(let subscription):
                let result = EventsSubscribeResult(
                    instance: daemon.instance, oldestSeq: subscription.oldestSeq, nextSeq: subscription.nextSeq)
                guard let id else { return .subscribed(reply: nil, subscription) }
                return .subscribed(reply: encode(JSONRPCResponse(id: id, result: result)), subscription)
            }
        }
    }

    /// The line for one subscription item: an `event` or `events.dropped` notification.
    func notificationLine(for item: SubscriptionItem) -> ByteBuffer {
        switch item {
        case .event(let event):
            return encode(JSONRPCNotification(method: .event, params: event))
        case .dropped(let count, let firstSeq, let lastSeq):
            return encode(
                JSONRPCNotification(
                    method: .eventsDropped, params: EventsDroppedParams(count: count, firstSeq: firstSeq, lastSeq: lastSeq)))
        }
    }

    // MARK: Methods

    private func status() -> StatusResult {
        StatusResult(
            version: daemon.version, protocolVersion: PassTapProtocolVersion, instance: daemon.instance,
            uptimeSeconds: daemon.uptimeSeconds, readers: backends.readers())
    }

    private func readersList() -> ReadersListResult {
        ReadersListResult(readers: backends.readers())
    }

    private func transmit(_ params: CardTransmitParams) async -> Result<CardTransmitResult, JSONRPCError> {
        let method = RPCMethod.cardTransmit.rawValue
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](hex: params.apdu)
        } catch {
            return .failure(.invalidParams(method: method, "apdu: \(error)"))
        }
        let command: CommandAPDU
        do {
            command = try CommandAPDU(bytes: bytes)
        } catch {
            return .failure(.invalidParams(method: method, "apdu \(bytes.hexString) is not a command APDU: \(error)"))
        }
        do {
            let response = try await backends.transmit(command, raw: params.raw, on: params.reader)
            return .success(
                CardTransmitResult(
                    response: response.data.hexString, sw: response.statusWord.hex, meaning: response.statusWord.meaning))
        } catch {
            return .failure(error.jsonRPCError)
        }
    }

    private func vasRead(_ params: VASReadParams) async -> Result<VASReadResult, JSONRPCError> {
        let method = RPCMethod.vasRead.rawValue
        guard let configured = configuration.vasMerchants else {
            return .failure(JSONRPCError(.vasDisabled, "Apple VAS is disabled: set [vas] enabled = true and configure [[vas.merchants]] in passtapd.toml"))
        }
        guard VASReadParams.timeoutRange.contains(params.timeoutMilliseconds) else {
            return .failure(.invalidParams(method: method, "timeout_ms must be from \(VASReadParams.timeoutRange.lowerBound) to \(VASReadParams.timeoutRange.upperBound)"))
        }
        if let merchants = params.merchants {
            guard !merchants.isEmpty else {
                return .failure(.invalidParams(method: method, "merchants is empty: leave it out to ask every configured merchant"))
            }
            if let unknown = merchants.first(where: { !configured.contains($0) }) {
                return .failure(.invalidParams(method: method, "merchants: \(unknown) is not configured; configured: \(configured.joined(separator: ", "))"))
            }
        }
        guard backends.knows(params.reader) else {
            return .failure(ReaderCommandError.unknownReader(params.reader).jsonRPCError)
        }
        do {
            let result = try await vasReads.nextTap(
                on: params.reader, merchants: params.merchants.map(Set.init), timeout: .milliseconds(params.timeoutMilliseconds))
            return .success(VASReadResult(reader: params.reader, result: result))
        } catch .timeout {
            return .failure(JSONRPCError(.timeout, "no card arrived on \(params.reader) within \(params.timeoutMilliseconds) ms: tap again, or raise timeout_ms"))
        } catch {
            return .failure(JSONRPCError(.shuttingDown, "the vas.read was cancelled (the daemon is stopping)"))
        }
    }

    private func subscribe(_ params: EventsSubscribeParams) -> Result<EventSubscription, JSONRPCError> {
        do {
            return .success(
                try hub.subscribe(
                    since: params.since, kinds: params.kinds.map(Set.init), queueLimit: configuration.clientQueue))
        } catch {
            return .failure(error.jsonRPCError)
        }
    }

    // MARK: Encoding

    private func decodeParams<Params: Decodable & Sendable>(
        _ type: Params.Type, _ method: RPCMethod, from bytes: Data
    ) -> Result<Params?, JSONRPCError> {
        do {
            return .success(try NDJSON.decode(JSONRPCRequest<Params>.self, from: bytes).params)
        } catch let error as DecodingError {
            return .failure(.invalidParams(method: method.rawValue, Self.paramsErrorDetail(error)))
        } catch {
            return .failure(.invalidParams(method: method.rawValue, "\(error)"))
        }
    }

    private func respond<Value: Encodable & Sendable>(_ id: JSONRPCID?, _ outcome: Result<Value, JSONRPCError>) -> Outcome {
        guard let id else { return .silent }  // a client notification gets no answer, errors included
        return .reply(encode(JSONRPCResponse(id: id, outcome: outcome)))
    }

    private func errorLine(id: JSONRPCID, _ error: JSONRPCError) -> Outcome {
        .reply(encode(JSONRPCResponse<JSONRPCNoResult>(id: id, error: error)))
    }

    private func encode<Value: Encodable>(_ value: Value) -> ByteBuffer {
        do {
            return try NDJSON.encodeLine(value)
        } catch {
            // Our own types always encode; should one not, the client still gets a well-formed answer.
            let fallback = #"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"the daemon could not encode its answer","data":{"reason":"internal_error"}}}"#
            return ByteBuffer(string: fallback + "\n")
        }
    }

    private static let transmitDisabled = JSONRPCError(
        .transmitDisabled,
        "card.transmit is disabled (raw APDUs can read payment card data): set [socket] allow_transmit = true in passtapd.toml to enable it")

    private static let alreadySubscribed = JSONRPCError(
        .alreadySubscribed, "this connection is already subscribed: open another connection for a second stream")

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
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
