import Foundation
import PassTapProtocol

/// JSON-RPC calls over one ``RPCConnection``: numbers requests, matches answers, decodes results.
struct RPCSession {
    private var connection: RPCConnection
    private var nextID: Int64 = 1

    init(connection: RPCConnection) {
        self.connection = connection
    }

    /// Connects to `path`, checks that `daemon` accepts who serves it, runs `body`, and fails with
    /// ``CLIError/timeout(seconds:)`` if the whole exchange takes longer than `timeout` seconds
    /// (`nil`: no limit, for `watch`).
    static func run<Result: Sendable>(
        socket path: String, daemon: DaemonIdentity, timeout: Double?,
        _ body: @escaping @Sendable (inout RPCSession) async throws -> Result
    ) async throws -> Result {
        let work: @Sendable () async throws -> Result = {
            try await RPCConnection.withConnection(to: path, daemon: daemon) { connection in
                var session = RPCSession(connection: connection)
                return try await body(&session)
            }
        }
        guard let timeout else { return try await work() }
        return try await withThrowingTaskGroup(of: Result.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(timeout * 1000)))
                throw CLIError.timeout(seconds: timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CLIError.closed }
            return first
        }
    }

    /// Calls `method` and returns its decoded result, or throws the daemon's error.
    mutating func call<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: RPCMethod, _ params: Params, as type: Result.Type
    ) async throws -> Result {
        switch try await answer(method, params, as: type) {
        case .success(let result): return result
        case .failure(let error): throw CLIError.rpc(code: error.code.rawValue, message: error.message, reason: error.data?.reason)
        }
    }

    /// Calls `method` and returns its decoded result or the daemon's error for this call, whole
    /// (with its `data`), for a command that words an error itself; throws when there is no
    /// answer, or for an error about the connection.
    mutating func answer<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: RPCMethod, _ params: Params, as: Result.Type
    ) async throws -> Swift.Result<Result, JSONRPCError> {
        let id = JSONRPCID.number(nextID)
        nextID += 1
        try await connection.send(try NDJSON.makeEncoder().encode(JSONRPCRequest(id: id, method: method, params: params)))
        while let line = try await connection.receive() {
            guard let probe = try? JSONDecoder().decode(ResponseProbe.self, from: line) else { continue }
            // An error with a null id is about the connection (no role, too many clients, idle):
            // the daemon closes it next, so it is this call's answer too.
            if probe.id == nil || probe.id == .null, let error = probe.error {
                throw CLIError.rpc(code: error.code.rawValue, message: error.message, reason: error.data?.reason)
            }
            guard probe.id == id else { continue }
            let response: JSONRPCResponse<Result>
            do {
                response = try JSONDecoder().decode(JSONRPCResponse<Result>.self, from: line)
            } catch {
                throw CLIError.badAnswer("\(method.rawValue): \(error)")
            }
            return response.outcome
        }
        throw CLIError.closed
    }

    /// The next line from the daemon (after a subscription: notifications), or `nil` at close.
    mutating func nextLine() async throws -> Data? {
        try await connection.receive()
    }

    /// Just enough of a message to tell a response to our request from a notification.
    private struct ResponseProbe: Decodable {
        var id: JSONRPCID?
        var error: JSONRPCError?
    }
}
