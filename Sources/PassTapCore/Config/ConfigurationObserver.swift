/// A running component that must act when a reload changes the configuration: resize a buffer,
/// rescan connections, restart a reader backend, relabel metrics. (A component that only reads
/// settings at each use reads ``LiveConfiguration/current`` instead and needs no call.)
///
/// The daemon lists every observer in one place, the order they are told in (`Daemon.run()`); a
/// new listener or forwarder is one more entry there.
public protocol ConfigurationObserver: Sendable {
    /// Called once per reload that put a configuration in force, after
    /// ``LiveConfiguration/current`` returns `new`; `old` is the one it replaced. Reloads run one
    /// at a time, so calls never overlap. Restart-only settings are the same in both.
    func configurationChanged(from old: Configuration, to new: Configuration) async
}
