import Logging
import NIOCore
import PassTapCore
import PassTapHTTP
import ServiceLifecycle
import Synchronization

/// Runs an `HTTPListener` on 127.0.0.1, port 0, in a service group while `body` runs, then stops it.
/// With `unauthenticated`, its connections pass that pool's gate.
func withListener(
    _ routes: HTTPRoutes, limits: HTTPListenerLimits = HTTPListenerLimits(maximumConnections: 8, maximumRequestBytes: 8192, requestDeadline: .seconds(600)),
    unauthenticated: UnauthenticatedConnections? = nil, _ body: @Sendable (SocketAddress) async throws -> Void
) async throws {
    let logger = Logger(label: "passtap.test.http")
    let listener = HTTPListener(
        name: "web", address: ListenAddress(host: "127.0.0.1", port: 0), limits: limits, unauthenticated: unauthenticated, routes: routes, logger: logger)
    let group = ServiceGroup(services: [listener], logger: logger)
    try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        let address = try await listener.waitUntilListening()
        do {
            try await body(address)
        } catch {
            await group.triggerGracefulShutdown()
            throw error
        }
        await group.triggerGracefulShutdown()
        try await tasks.waitForAll()
    }
}

/// How many times something happened, from any thread.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func increment() { count.add(1, ordering: .relaxed) }
}
