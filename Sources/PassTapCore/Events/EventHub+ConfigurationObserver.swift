extension EventHub: ConfigurationObserver {
    /// A reload of `[events]`: `buffer` and `buffer_bytes` bound the replay buffer
    /// (``resize(capacity:maximumBytes:)``), `client_queue` every live subscription's queue
    /// (``setQueueLimit(_:)``; a new subscription reads it from the configuration).
    public func configurationChanged(from old: Configuration, to new: Configuration) {
        if new.events.buffer != old.events.buffer || new.events.bufferBytes != old.events.bufferBytes {
            resize(capacity: new.events.buffer, maximumBytes: new.events.bufferBytes)
        }
        if new.events.clientQueue != old.events.clientQueue {
            setQueueLimit(new.events.clientQueue)
        }
    }
}
