import PassTapCore
import PassTapProtocol

/// The wire's event encoder, counting the lines it makes into `counter`: a hub given it shows how
/// often an event is encoded.
struct CountingEventEncoder: EventLineEncoder {
    let counter: Counter

    func line(for event: Event) -> any EventLine {
        counter.increment()
        return EventNotificationEncoder().line(for: event)
    }
}
