import ForwardSettings
import PassTapCore
import PassTapProtocol
@testable import PassTapForward
import Synchronization

/// A sink that records every batch it is given and answers from a script: each attempt takes
/// the next step; with the script empty, every batch is delivered.
final class ScriptedSink: ForwardSink {
    enum Step: Sendable {
        /// Answer this.
        case answer(DeliveryOutcome)
        /// Never answer until ``shutdown()`` (a receiver that hangs, a task that ignores
        /// cancellation); then answer a retry.
        case hang
    }

    let configuration: Configuration.ForwardSinkConfiguration
    let batchLimit: Int
    /// Every batch given to ``deliver(_:)``, in order (retries included).
    let attempts = Recorded<[OutboxItem]>()
    /// One entry per ``shutdown()``.
    let shutdowns = Recorded<Void>()
    private let script: Mutex<[Step]>

    init(_ configuration: Configuration.ForwardSinkConfiguration, batchLimit: Int = 1, script: [Step] = []) {
        self.configuration = configuration
        self.batchLimit = batchLimit
        self.script = Mutex(script)
    }

    var settings: Configuration.ForwardSinkSettings { configuration.settings }

    /// The events of every attempt, in order, by rowID.
    var attemptedRows: [[Int64]] { attempts.values.map { $0.map(\.rowID) } }

    /// Adds steps to the script.
    func then(_ steps: Step...) {
        script.withLock { $0 += steps }
    }

    func deliver(_ batch: [OutboxItem]) async -> DeliveryOutcome {
        let step = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        attempts.append(batch)
        switch step {
        case nil: return .delivered
        case .answer(let outcome)?: return outcome
        case .hang?:
            await shutdowns.wait(count: 1)
            return .retry(delivered: 0, after: nil, error: ForwardFailure(.other, "shut down"))
        }
    }

    func shutdown() async {
        shutdowns.append(())
    }
}

/// The forwarder's `makeSink` for tests: a ``ScriptedSink`` per configuration, each one made
/// kept in ``made``, with the script given for its name.
final class ScriptedSinkFactory: Sendable {
    /// Every sink made, in order.
    let made = Recorded<ScriptedSink>()
    private let scripts: Mutex<[String: [ScriptedSink.Step]]>
    private let batchLimit: Int

    init(batchLimit: Int = 1, scripts: [String: [ScriptedSink.Step]] = [:]) {
        self.batchLimit = batchLimit
        self.scripts = Mutex(scripts)
    }

    func make(_ configuration: Configuration.ForwardSinkConfiguration) -> any ForwardSink {
        let script = scripts.withLock { $0.removeValue(forKey: configuration.settings.name) ?? [] }
        let sink = ScriptedSink(configuration, batchLimit: batchLimit, script: script)
        made.append(sink)
        return sink
    }

    /// The last sink made for `name`, once there is one.
    func sink(_ name: String, made count: Int = 1) async -> ScriptedSink {
        let made = await made.wait { $0.filter { $0.settings.name == name }.count >= count }
        return made.last { $0.settings.name == name }!
    }
}
