/// How one backend finds its readers (a hotplug source): pcsc-lite's PnP notification, libnfc's
/// configured serial paths and USB devices in sysfs. It only tells the ``ReaderRegistry`` which
/// readers are there; the registry starts, stops and restarts them.
public protocol ReaderDiscovery: Sendable {
    /// The body of the backend's discovery thread: hands `registry` the readers there now
    /// (``ReaderRegistry/reconcile(_:)``), again whenever they may have changed, until
    /// ``ReaderRegistry/isStopping``. It pauses through ``ReaderRegistry/pause(for:)``, which
    /// stopping ends at once.
    func run(in registry: ReaderRegistry)

    /// Ends a blocking call of ``run(in:)`` that is not a registry pause (pcsc-lite's PnP wait).
    /// Called once, when the registry stops; never blocks.
    func stop()
}

extension ReaderDiscovery {
    /// Nothing to end: the discovery blocks only in registry pauses.
    public func stop() {}
}
