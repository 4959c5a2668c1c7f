import Logging
import PassTapCore

/// Restarts, on a reload, each reader backend whose settings changed: it is stopped (its readers
/// go, with `reader.removed`) and started again with the new ones (they come back with
/// `reader.added`); one newly enabled is started, one disabled stopped.
struct BackendReloader: ConfigurationObserver {
    let backends: ReaderBackends
    let factory: BackendFactory
    /// How long a backend being restarted may take to stop its threads.
    let deadline: Duration

    func configurationChanged(from old: Configuration, to new: Configuration) async {
        for name in BackendFactory.names where ReloadPlan.backendDiffers(name, old: old, new: new) {
            factory.logger.notice(
                "restarting a reader backend for the reloaded config",
                metadata: ["backend": "\(name)", "backend.enabled": "\(new.section(name).enabled)"])
            await backends.replace(name, with: factory.make(name, for: new), deadline: deadline)
        }
    }
}
