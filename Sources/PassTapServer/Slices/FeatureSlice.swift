public import NIOCore
public import PassTapCore
public import ServiceLifecycle

/// One feature of the running daemon (the web listener, forwarding, metrics…), as the daemon
/// registers it: what the feature adds to the parts every tap and every client go through. The
/// feature's settings half (its table, keys and reload rows) is its `ConfigSection`; this is its
/// running half. `Daemon.run` lists the slices once, and each part below is the union of theirs,
/// in list order (docs/architecture.md, "Feature slices").
///
/// Every member has a default that adds nothing, so a slice states only what it owns.
package protocol FeatureSlice: Sendable {
    /// The feature's name, for logs (`web`, `forward`, `metrics`).
    var name: String { get }
    /// The socket methods it answers, added to the dispatcher's table (`forward.*`).
    var methods: [any MethodHandler] { get }
    /// What watches every published event for it (the outbox writer, the metrics recorder).
    var eventObserver: (any PublishedEventObserver)? { get }
    /// What it does on a reload, told after the hub and the socket server.
    var configurationObserver: (any ConfigurationObserver)? { get }
    /// Its reader-side hooks, run on each reader's thread after a tap's result is published.
    var readerHooks: [any ReaderHook] { get }
    /// Why it is degraded now, one sentence each: `status.health.problems` and systemd's
    /// `STATUS=` line (a listener down, a sink broken).
    func problems() -> [String]
    /// Adds its members to `status` (`web_clients`).
    func describeStatus(_ health: inout HealthSources)
    /// Its services, made once the socket server exists (`host`).
    func services(_ host: inout SliceHost) -> SliceServices
}

extension FeatureSlice {
    package var methods: [any MethodHandler] { [] }
    package var eventObserver: (any PublishedEventObserver)? { nil }
    package var configurationObserver: (any ConfigurationObserver)? { nil }
    package var readerHooks: [any ReaderHook] { [] }
    package func problems() -> [String] { [] }
    package func describeStatus(_ health: inout HealthSources) {}
    package func services(_ host: inout SliceHost) -> SliceServices { SliceServices() }
}

/// What the daemon lends a slice for its services: the parts made after the slices.
package struct SliceHost: Sendable {
    /// The socket server (the web listener serves `/rpc` through its dispatcher).
    package let server: SocketServer
    /// NIO's event loops.
    package let eventLoops: any EventLoopGroup
    /// The listening sockets systemd passed (`FileDescriptorName=` to descriptors) that no slice
    /// has taken yet; the daemon closes what is left.
    package private(set) var passedSockets: [String: [CInt]]

    /// A host lending `server` and `eventLoops`, and the sockets systemd passed by name.
    package init(server: SocketServer, eventLoops: any EventLoopGroup, passedSockets: [String: [CInt]]) {
        self.server = server
        self.eventLoops = eventLoops
        self.passedSockets = passedSockets
    }

    /// Takes the sockets systemd passed under `name`; `nil` when none were (or another slice
    /// took them).
    package mutating func takePassedSockets(_ name: String) -> [CInt]? {
        passedSockets.removeValue(forKey: name)
    }
}

/// A slice's services and where they go in the daemon's service group, which starts services in
/// order and stops them in reverse.
package struct SliceServices: Sendable {
    /// Started before the readers and the socket, stopped after them: the outbox, which must
    /// keep every event the readers publish until they stop.
    package var outer: [any Service]
    /// Started after the readers and the socket, stopped before them: listeners, senders.
    package var inner: [any Service]

    /// `outer` and `inner`; none by default.
    package init(outer: [any Service] = [], inner: [any Service] = []) {
        self.outer = outer
        self.inner = inner
    }
}

extension Array where Element == any FeatureSlice {
    /// Every slice's socket methods, in slice order.
    package var methods: [any MethodHandler] { flatMap(\.methods) }
    /// Every slice's event observer, in slice order.
    package var eventObservers: [any PublishedEventObserver] { compactMap(\.eventObserver) }
    /// Every slice's reload observer, in slice order.
    package var configurationObservers: [any ConfigurationObserver] { compactMap(\.configurationObserver) }
    /// Every slice's reader hooks, in slice order.
    package var readerHooks: ReaderHooks { ReaderHooks(flatMap(\.readerHooks)) }
}
