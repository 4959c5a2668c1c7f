public import Foundation
import PassTapProtocol

/// What `passtap keyboard` does with one line from passtapd (docs/keyboard.md, "Safety"): the
/// text to type, or why not. The read's text is untrusted: anyone with a merchant's public key
/// (it is in every pass) can make a phone present any VAS message, and any tag carries any NDEF,
/// so only `allowed` characters are typed, at most `max_length`, never a control character, and
/// a read that fails is refused whole, never typed in part.
public enum KeyboardDecision: Hashable, Sendable {
    /// Type `text`, then the suffix key. `source` says where it came from, for the log.
    case type(text: String, source: KeyboardSettings.Source)
    /// Not for this typist: another event, another reader, no source it types. Said nothing.
    case ignore
    /// A read refused: too old, too long, a character not allowed. Reported, never typed.
    case refuse(String)
}

/// The part of a `read.result` the typist reads; the rest of the event is not decoded.
struct ReadEvent: Decodable, Sendable {
    struct VAS: Decodable {
        struct Entry: Decodable { let message: String? }
        let entries: [Entry]?
    }
    struct SmartTap: Decodable {
        struct Object: Decodable { let value: String? }
        let objects: [Object]?
    }
    struct NDEF: Decodable {
        struct Record: Decodable {
            let uri: String?
            let text: String?
        }
        let records: [Record]?
    }
    let time: String
    let kind: String
    let reader: String?
    let uid: String?
    let vas: VAS?
    let smarttap: SmartTap?
    let ndef: NDEF?
}

extension KeyboardSettings {
    /// What to do with `line`, one line of passtapd's socket, at `now`.
    public func decide(line: Data, now: Date) -> KeyboardDecision {
        guard let notification = try? JSONDecoder().decode(JSONRPCNotification<ReadEvent>.self, from: line),
            notification.method == RPCNotificationMethod.event.rawValue, notification.params.kind == "read.result"
        else { return .ignore }
        let event = notification.params
        let reader = event.reader ?? ""
        guard readers.isEmpty || readers.contains(where: { reader.hasPrefix($0) }) else { return .ignore }
        guard let time = Self.time(event.time) else { return .refuse("the read's time \"\(event.time.prefix(40))\" is not RFC 3339") }
        let age = now.timeIntervalSince(time)
        if age * 1000 > Double(maxAgeMilliseconds) || age * 1000 < -Double(maxAgeMilliseconds) {
            return .refuse("the read from \(reader) is \(String(format: "%.1f", age)) s old (max_age_ms = \(maxAgeMilliseconds)): not typed")
        }
        guard let (source, raw) = value(of: event) else { return .ignore }
        let value = cut(raw)
        let stamp = Self.stamp(time)
        let text = prefix.replacingOccurrences(of: "{timestamp}", with: stamp)
            + (templates[source] ?? template).replacingOccurrences(of: "{value}", with: value).replacingOccurrences(of: "{uid}", with: event.uid ?? "")
            .replacingOccurrences(of: "{reader}", with: reader).replacingOccurrences(of: "{timestamp}", with: stamp)
        return check(text, source: source, reader: reader)
    }

    /// The text if every character is allowed and it is not too long.
    func check(_ text: String, source: Source, reader: String) -> KeyboardDecision {
        let count = text.unicodeScalars.count
        guard count <= maxLength else {
            return .refuse("the \(source.rawValue) read from \(reader) is \(count) characters, over max_length = \(maxLength): not typed")
        }
        guard !text.isEmpty else { return .refuse("the \(source.rawValue) read from \(reader) is empty: not typed") }
        let allowed = Set(allowed.unicodeScalars)
        for (position, scalar) in text.unicodeScalars.enumerated() where !allowed.contains(scalar) {
            // The character's code, never the text: it can be a pass message.
            return .refuse(
                "the \(source.rawValue) read from \(reader) has \(KeyboardLayout.describe(scalar)) at position \(position + 1), not in `allowed`: not typed")
        }
        return .type(text: text, source: source)
    }

    /// The first of `sources` the read has, and its value.
    private func value(of event: ReadEvent) -> (Source, String)? {
        for source in sources {
            switch source {
            case .vas:
                if let message = event.vas?.entries?.lazy.compactMap(\.message).first { return (source, message) }
            case .smarttap:
                if let value = event.smarttap?.objects?.lazy.compactMap(\.value).first { return (source, value) }
            case .ndef:
                if let record = event.ndef?.records?.first(where: { $0.uri != nil || $0.text != nil }) {
                    return (source, record.uri ?? record.text ?? "")
                }
            case .uid:
                if let uid = event.uid { return (source, uid) }
            }
        }
        return nil
    }

    /// `value` cut as `cut_separator`/`cut_field` and `cut_offset`/`cut_length` say.
    func cut(_ value: String) -> String {
        var part = Substring(value)
        if !cutSeparator.isEmpty {
            let fields = value.components(separatedBy: cutSeparator)
            part = cutField < fields.count ? Substring(fields[cutField]) : ""
        }
        if cutOffset > 0 || cutLength > 0 {
            let characters = Array(part)
            let start = min(cutOffset, characters.count)
            let end = cutLength == 0 ? characters.count : min(characters.count, start + cutLength)
            part = Substring(String(characters[start..<end]))
        }
        return String(part)
    }

    private static func time(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    private static func stamp(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }
}
