/// The integer `code` of a JSON-RPC error, with the snake_case `reason` PassTap sends beside it in
/// `error.data.reason`.
///
/// JSON-RPC 2.0, section 5.1 reserves -32768 to -32000:
///
/// | code   | message          | meaning                                                    |
/// |--------|------------------|------------------------------------------------------------|
/// | -32700 | Parse error      | Invalid JSON was received by the server.                   |
/// | -32600 | Invalid Request  | The JSON sent is not a valid Request object.               |
/// | -32601 | Method not found | The method does not exist / is not available.              |
/// | -32602 | Invalid params   | Invalid method parameter(s).                               |
/// | -32603 | Internal error   | Internal JSON-RPC error.                                   |
/// | -32000 to -32099 | Server error | Reserved for implementation-defined server-errors. |
///
/// PassTap's own codes (the full table, with what a client should do, is in `docs/socket-api.md`):
///
/// | code   | reason               | when                                                        |
/// |--------|----------------------|-------------------------------------------------------------|
/// | -32001 | `no_card`            | `card.transmit` to a reader with no card                    |
/// | -32002 | `unknown_reader`     | no reader has that id                                       |
/// | -32003 | `reader_unavailable` | the reader is known but unusable (pcscd down, unplugged)    |
/// | -32004 | `transport_error`    | the exchange failed; `data.code` is the transport code      |
/// | -32005 | `transmit_disabled`  | `card.transmit` while `[socket] allow_transmit` is false    |
/// | -32006 | `too_many_clients`   | `[socket] max_clients` reached; the connection is closed    |
/// | -32007 | `line_too_long`      | a line over 64 KiB; the connection is closed                |
/// | -32008 | `shutting_down`      | the daemon is stopping                                      |
/// | -32009 | `already_subscribed` | a second `events.subscribe` on one connection               |
/// | -32010 | `timeout`            | `pass.read`: no card arrived on the reader within `timeout_ms` |
/// | -32011 | `vas_disabled`       | `pass.read` while `[vas]` and `[smarttap] enabled` are false |
/// | -32012 | `not_iso_dep`        | `card.transmit` to a card that does not speak ISO-DEP       |
/// | -32013 | `cancelled`          | the request was cancelled before it reached the card        |
/// | -32014 | `forbidden`          | the peer lacks the role the method needs (`[access]`)       |
/// | -32015 | `idle_timeout`       | no request for `[socket] idle_timeout_ms`; connection closed |
/// | -32016 | `busy`               | `pass.read`: the user's `vas_reads_per_uid` already waiting |
/// | -32017 | `unauthenticated`    | `/rpc`: a method before the handshake is done               |
/// | -32018 | `auth_failed`        | `/rpc`: wrong proof or name, or an Origin it does not list  |
/// | -32019 | `auth_rate_limited`  | `/rpc`: a failure over the Origin's (or global) limit       |
/// | -32020 | `auth_timeout`       | `/rpc`: no handshake within `[web] auth_timeout_ms`         |
/// | -32021 | `unknown_sink`       | `forward.retry`/`forward.drop`: no sink has that name       |
/// | -32022 | `outbox_unavailable` | the forwarding outbox cannot be read or written now         |
/// | -32023 | `auth_outdated`      | `/rpc`: the old one-message `auth`, which sent the token    |
/// | -32024 | `protocol_unsupported` | `/rpc`: `auth.hello` names a protocol passtapd does not speak |
public struct JSONRPCErrorCode: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The integer sent as `error.code`.
    public let rawValue: Int

    /// Wraps a code as received.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// -32700: the line is not valid JSON.
    public static let parseError = JSONRPCErrorCode(rawValue: -32700)
    /// -32600: valid JSON, but not a JSON-RPC 2.0 request object (batches included).
    public static let invalidRequest = JSONRPCErrorCode(rawValue: -32600)
    /// -32601: no such method.
    public static let methodNotFound = JSONRPCErrorCode(rawValue: -32601)
    /// -32602: the params are missing, of the wrong type, unknown, or out of range.
    public static let invalidParams = JSONRPCErrorCode(rawValue: -32602)
    /// -32603: the daemon failed in a way that is not the client's doing.
    public static let internalError = JSONRPCErrorCode(rawValue: -32603)
    /// -32001: the reader holds no card.
    public static let noCard = JSONRPCErrorCode(rawValue: -32001)
    /// -32002: no reader has the given id.
    public static let unknownReader = JSONRPCErrorCode(rawValue: -32002)
    /// -32003: the reader is known but cannot be used now.
    public static let readerUnavailable = JSONRPCErrorCode(rawValue: -32003)
    /// -32004: the exchange with the card failed; `data.code` says how.
    public static let transportError = JSONRPCErrorCode(rawValue: -32004)
    /// -32005: `card.transmit` is turned off in the configuration.
    public static let transmitDisabled = JSONRPCErrorCode(rawValue: -32005)
    /// -32006: the server has as many clients as it accepts.
    public static let tooManyClients = JSONRPCErrorCode(rawValue: -32006)
    /// -32007: a request line exceeded the line limit.
    public static let lineTooLong = JSONRPCErrorCode(rawValue: -32007)
    /// -32008: the daemon is shutting down.
    public static let shuttingDown = JSONRPCErrorCode(rawValue: -32008)
    /// -32009: this connection already has a subscription.
    public static let alreadySubscribed = JSONRPCErrorCode(rawValue: -32009)
    /// -32010: nothing happened in the time the request allowed.
    public static let timeout = JSONRPCErrorCode(rawValue: -32010)
    /// -32011: `vas.read` while VAS is turned off in the configuration.
    public static let vasDisabled = JSONRPCErrorCode(rawValue: -32011)
    /// -32012: the card in the field does not speak ISO-DEP and the reader cannot send it APDUs.
    public static let notISODep = JSONRPCErrorCode(rawValue: -32012)
    /// -32013: the request was cancelled before it reached the card (its client went away).
    public static let cancelled = JSONRPCErrorCode(rawValue: -32013)
    /// -32014: the connection's peer does not hold the role the method needs (`[access]`).
    public static let forbidden = JSONRPCErrorCode(rawValue: -32014)
    /// -32015: the connection sent no request for `[socket] idle_timeout_ms` while neither
    /// subscribed nor waiting for an answer; it is closed.
    public static let idleTimeout = JSONRPCErrorCode(rawValue: -32015)
    /// -32016: the user already has `[socket] vas_reads_per_uid` `vas.read`s waiting on that reader.
    public static let busy = JSONRPCErrorCode(rawValue: -32016)
    /// -32017: on `/rpc`, a method other than `auth` before `auth` succeeded.
    public static let unauthenticated = JSONRPCErrorCode(rawValue: -32017)
    /// -32018: `auth` with a token no `[[web.tokens]]` entry has, or from an Origin that token does
    /// not list; the connection is closed.
    public static let authFailed = JSONRPCErrorCode(rawValue: -32018)
    /// -32019: `auth` failed and its Origin (or every Origin together) is over its failure limit;
    /// `data.retry_after_ms` says when failures count again. The connection is closed.
    public static let authRateLimited = JSONRPCErrorCode(rawValue: -32019)
    /// -32020: no successful `auth` within `[web] auth_timeout_ms` of the upgrade; the connection
    /// is closed.
    public static let authTimeout = JSONRPCErrorCode(rawValue: -32020)
    /// -32021: `forward.retry` or `forward.drop` named a sink that is neither configured nor
    /// removed with a backlog still kept.
    public static let unknownSink = JSONRPCErrorCode(rawValue: -32021)
    /// -32022: the forwarding outbox could not be read or written (`data.detail` says why).
    public static let outboxUnavailable = JSONRPCErrorCode(rawValue: -32022)
    /// -32023: on `/rpc`, the old one-message `auth` (which carried the token's secret); the
    /// handshake replaced it (`auth.hello`, `auth.prove`). The connection is closed.
    public static let authOutdated = JSONRPCErrorCode(rawValue: -32023)
    /// -32024: on `/rpc`, `auth.hello` named a protocol version passtapd does not speak;
    /// `data.supported` lists the ones it does. The connection is closed.
    public static let protocolUnsupported = JSONRPCErrorCode(rawValue: -32024)
    /// -32025: the peer (a user, or a web token) called the method more often than it allows;
    /// `data.retry_after_ms` says when a call is taken again (`feedback.signal`).
    public static let rateLimited = JSONRPCErrorCode(rawValue: -32025)
    /// -32026: `feedback.signal` could not play the pattern: `[feedback]` is off, the reader has
    /// no feedback model, or it refused the command (`data.detail` says which).
    public static let feedbackUnavailable = JSONRPCErrorCode(rawValue: -32026)

    /// Every code PassTap sends, in the order of the table above (`docs/socket-api.md`, "Error
    /// codes", and the web listener's in `docs/web.md`): a test checks each is documented.
    public static let all: [JSONRPCErrorCode] = [
        .parseError, .invalidRequest, .methodNotFound, .invalidParams, .internalError,
        .noCard, .unknownReader, .readerUnavailable, .transportError, .transmitDisabled, .tooManyClients,
        .lineTooLong, .shuttingDown, .alreadySubscribed, .timeout, .vasDisabled, .notISODep, .cancelled,
        .forbidden, .idleTimeout, .busy, .unauthenticated, .authFailed, .authRateLimited, .authTimeout,
        .unknownSink, .outboxUnavailable, .authOutdated, .protocolUnsupported, .rateLimited, .feedbackUnavailable,
    ]

    /// The snake_case reason PassTap sends in `error.data.reason` for this code.
    public var reason: String {
        switch self {
        case .parseError: return "parse_error"
        case .invalidRequest: return "invalid_request"
        case .methodNotFound: return "method_not_found"
        case .invalidParams: return "invalid_params"
        case .internalError: return "internal_error"
        case .noCard: return "no_card"
        case .unknownReader: return "unknown_reader"
        case .readerUnavailable: return "reader_unavailable"
        case .transportError: return "transport_error"
        case .transmitDisabled: return "transmit_disabled"
        case .tooManyClients: return "too_many_clients"
        case .lineTooLong: return "line_too_long"
        case .shuttingDown: return "shutting_down"
        case .alreadySubscribed: return "already_subscribed"
        case .timeout: return "timeout"
        case .vasDisabled: return "vas_disabled"
        case .notISODep: return "not_iso_dep"
        case .cancelled: return "cancelled"
        case .forbidden: return "forbidden"
        case .idleTimeout: return "idle_timeout"
        case .busy: return "busy"
        case .unauthenticated: return "unauthenticated"
        case .authFailed: return "auth_failed"
        case .authRateLimited: return "auth_rate_limited"
        case .authTimeout: return "auth_timeout"
        case .unknownSink: return "unknown_sink"
        case .outboxUnavailable: return "outbox_unavailable"
        case .authOutdated: return "auth_outdated"
        case .protocolUnsupported: return "protocol_unsupported"
        case .rateLimited: return "rate_limited"
        case .feedbackUnavailable: return "feedback_unavailable"
        default: return "error_\(-rawValue)"
        }
    }

    public var description: String { "\(rawValue) \(reason)" }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
