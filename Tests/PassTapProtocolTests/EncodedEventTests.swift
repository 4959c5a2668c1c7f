import Foundation
import NIOCore
import PassTapCore
import PassTapProtocol
import Synchronization
import Testing

/// An event is encoded once (its params), and its `event` line is written around those bytes:
/// the line must be, byte for byte, the one Codable writes for the whole notification, and the
/// params what subscribers find under `params` and the outbox stores.
@Suite struct EncodedEventTests {
    /// One event of each kind with every member set, each also as a subscriber without the roles
    /// sees it, and one whose strings need every kind of escape.
    static func events() throws -> [Event] {
        let full = try DocumentedEventKeysTests.fullEvents()
        let rejected = ConfigRejected(
            file: #"/etc/pass"tap\x/a.toml"#, line: 3, key: "log.level", problem: "\u{0}\u{1F}\u{7F}\n\t\r\u{8}\u{C} é \u{2028} 😀 </script>")
        let escapes = Event(
            seq: 99, time: Date(timeIntervalSince1970: 1_800_000_000.123), kind: .configRejected, reader: nil,
            payload: .configRejected(rejected))
        return full + full.map { $0.viewed(as: .passesWithheld) } + [escapes]
    }

    /// Collects the events a hub publishes, as the forwarding outbox receives them.
    final class Recorder: PublishedEventObserver {
        let recorded = Mutex<[PublishedEvent]>([])
        func observe(_ event: PublishedEvent) { recorded.withLock { $0.append(event) } }
    }

    @Test func theLineIsTheNotificationCodableWritesAroundTheParams() throws {
        for event in try Self.events() {
            let encoded = EncodedEvent(event)
            let whole = try NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event))
            #expect(String(buffer: encoded.line) == String(buffer: whole), "\(event.kind)")
            #expect(encoded.byteCount == whole.readableBytes)
            #expect(Array(encoded.params.readableBytesView) == Array(try NDJSON.makeEncoder().encode(event)), "\(event.kind)")
            let start = #"{"jsonrpc":"2.0","method":"event","params":"#
            #expect(String(buffer: encoded.line) == start + String(buffer: encoded.params) + "}\n")
        }
    }

    @Test func thePublishedLineAndTheOutboxesJSONAreTheSameEncoding() throws {
        let recorder = Recorder()
        let hub = EventHub(lineEncoder: EventNotificationEncoder(), capacity: 64, observers: [recorder])
        let events = try DocumentedEventKeysTests.fullEvents()
        for event in events { hub.publish(event.kind, reader: event.reader, payload: event.payload) }
        let published = recorder.recorded.withLock { $0 }
        #expect(published.count == events.count)
        for item in published {
            for view in [EventView.full, .passesWithheld] {
                let event = item.event.viewed(as: view)
                #expect(String(buffer: item.notificationLine(for: view)) == String(buffer: EventNotificationEncoder.encode(event)))
                #expect(Array(item.eventJSON(for: view).readableBytesView) == Array(try NDJSON.makeEncoder().encode(event)))
                // The outbox's bytes are the line's own, not a copy or a second encoding.
                let line = item.notificationLine(for: view)
                let params = item.eventJSON(for: view)
                line.withUnsafeReadableBytes { lineBytes in
                    params.withUnsafeReadableBytes { paramsBytes in
                        #expect(paramsBytes.baseAddress == lineBytes.baseAddress.map { $0 + 43 })
                    }
                }
            }
        }
    }
}
