import PassTapCore
@testable import PassTapForward

/// Records what the forwarder tells the metrics, call by call.
final class RecordingForwardMetrics: ForwardMetricsObserver {
    enum Call: Sendable, Hashable {
        case delivered(sink: String, latencies: [Duration])
        case retried(sink: String)
        case dead(sink: String)
        case dropped(reason: ForwardDropped.Reason, count: Int)
    }

    let calls = Recorded<Call>()
    let backlogs = Recorded<[ForwardBacklog]>()

    /// Returns once `count` deliveries to `sink` were told (wrap it in a deadline).
    func waitForDeliveries(_ count: Int, to sink: String) async {
        await calls.wait { calls in
            calls.reduce(0) { total, call in
                if case .delivered(sink, let latencies) = call { return total + latencies.count }
                return total
            } >= count
        }
    }

    func forwardBacklogs(_ backlogs: [ForwardBacklog]) { self.backlogs.append(backlogs) }
    func forwardDelivered(sink: String, latencies: [Duration]) { calls.append(.delivered(sink: sink, latencies: latencies)) }
    func forwardRetried(sink: String) { calls.append(.retried(sink: sink)) }
    func forwardDead(sink: String) { calls.append(.dead(sink: sink)) }
    func forwardDropped(reason: ForwardDropped.Reason, count: Int) { calls.append(.dropped(reason: reason, count: count)) }
}
