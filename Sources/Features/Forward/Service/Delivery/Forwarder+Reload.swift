public import ForwardSettings
import Foundation
import Logging
import Synchronization
public import PassTapCore

extension Forwarder {
    /// A reload: sinks added start from the next event, changed ones are made again with their
    /// cursor kept, removed ones stop and keep their backlog for `removed_sink_keep_hours`. The
    /// outbox is opened now if this is the first configuration with a sink.
    public func configurationChanged(from old: Configuration, to new: Configuration) async {
        await gate.run { await self.apply(new.forward) }
    }

    /// Makes the running sinks those of `forward`.
    func apply(_ forward: Configuration.Forward) async {
        guard let outbox = await openIfNeeded(forward) else { return }
        let wanted = forward.sinkConfigurations
        let wantedByName = Dictionary(wanted.map { ($0.settings.name, $0) }, uniquingKeysWith: { first, _ in first })
        // Removed and changed sinks stop first, so no loop of theirs runs across the change.
        let leaving = state.withLock { state in
            Set(state.running.filter { wantedByName[$0.key] != $0.value.configuration }.keys)
        }
        await stopSinks(named: leaving)
        do {
            try await outbox.setSinks(wanted.map(\.settings), now: clock.date)
        } catch {
            logger.error("cannot set the forwarding sinks in the outbox", metadata: ["error": "\(error)"])
            state.withLock { $0.outboxError = error.description }
            return
        }
        state.withLock { state in
            state.outboxError = nil
            guard !state.stopped else { return }
            for configuration in wanted where state.running[configuration.settings.name] == nil {
                let name = configuration.settings.name
                let record = state.records[name] ?? SinkRecord(name: name)
                state.records[name] = record
                let sink = makeSink(configuration)
                let loop = Task { await self.deliver(to: sink, record: record, outbox: outbox) }
                state.running[name] = Running(configuration: configuration, sink: sink, loop: loop)
            }
            for record in state.records.values { record.work.signal() }
        }
        for name in leaving.subtracting(wantedByName.keys) {
            logger.notice("forwarding sink removed: its backlog is kept for removed_sink_keep_hours", metadata: ["forward.sink": "\(name)"])
        }
        expiryWakeup.signal()
        refreshWakeup.signal()
    }

    /// The open outbox, opened now (and its timers started) if `forward` has a sink; `nil` if it
    /// has none yet or the outbox cannot be opened (logged, and shown in `forward.status`).
    private func openIfNeeded(_ forward: Configuration.Forward) async -> (any OutboxStorage)? {
        if let outbox = state.withLock({ $0.outbox }) { return outbox }
        guard !forward.sinkConfigurations.isEmpty else { return nil }
        let outbox: any OutboxStorage
        do {
            outbox = try await openOutbox()
        } catch {
            logger.error(
                "cannot open the forwarding outbox: nothing is forwarded until it opens (each reload tries again; a new [forward] outbox needs a restart)",
                metadata: ["error": "\(error)"])
            state.withLock { $0.outboxError = error.description }
            return nil
        }
        state.withLock { state in
            state.outbox = outbox
            state.outboxError = nil
            guard !state.stopped else { return }
            state.timers.append(Task { await self.expireRemovedSinks(of: outbox) })
            if metrics != nil { state.timers.append(Task { await self.refreshMetrics(of: outbox) }) }
        }
        return outbox
    }
}
