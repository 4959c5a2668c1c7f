// Part B's stand-in for part A's NDEF codec API (COMMON.md signatures), to build against until
// "A: NDEF codec API" lands on main; this file is deleted then. Not a codec: short and long
// records, IDs, no chunks, the URI prefixes and Text only.

public struct NDEFLimits: Sendable, Hashable {
    public var maxMessageBytes: Int
    public var maxRecords: Int
    public var maxDepth: Int
    public init(maxMessageBytes: Int, maxRecords: Int, maxDepth: Int) {
        self.maxMessageBytes = maxMessageBytes
        self.maxRecords = maxRecords
        self.maxDepth = maxDepth
    }
    public static let standard = NDEFLimits(maxMessageBytes: 65_536, maxRecords: 1024, maxDepth: 4)
}

public struct NDEFError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: Sendable, Hashable { case truncated, tooLarge, malformed }
    public var code: Code
    public var offset: Int?
    public var message: String
    public var description: String { message + (offset.map { " (at byte \($0))" } ?? "") }
}

public struct NDEFText: Sendable, Hashable {
    public enum Encoding: Sendable, Hashable { case utf8, utf16 }
    public var language: String
    public var text: String
    public var encoding: Encoding
}

public struct NDEFSmartPoster: Sendable, Hashable {
    public var message: NDEFMessage
    public var uri: String?
    public var titles: [NDEFText]
    public var action: UInt8?
}

public enum NDEFContent: Sendable, Hashable {
    case uri(String)
    case text(NDEFText)
    case smartPoster(NDEFSmartPoster)
    case media(type: String, payload: [UInt8])
    case external(type: String, payload: [UInt8])
    case absoluteURI(String)
    case empty
    case unknown(payload: [UInt8])
    case other(type: [UInt8], payload: [UInt8])
    case malformed(String)
}

public struct NDEFRecord: Sendable, Hashable {
    public var tnf: NDEFTypeNameFormat
    public var type: [UInt8]
    public var id: [UInt8]
    public var payload: [UInt8]
    public init(tnf: NDEFTypeNameFormat, type: [UInt8], id: [UInt8] = [], payload: [UInt8]) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }

    static let prefixes = ["", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:"]

    public func decoded(limits: NDEFLimits = .standard) -> NDEFContent {
        switch tnf {
        case .empty: return .empty
        case .wellKnown where type == [0x55]:
            guard let first = payload.first else { return .malformed("empty URI record") }
            let prefix = Int(first) < Self.prefixes.count ? Self.prefixes[Int(first)] : ""
            return .uri(prefix + String(decoding: payload.dropFirst(), as: UTF8.self))
        case .wellKnown where type == [0x54]:
            guard let status = payload.first, Int(status & 0x3F) < payload.count else { return .malformed("bad Text record") }
            let language = String(decoding: payload[1..<(1 + Int(status & 0x3F))], as: UTF8.self)
            return .text(NDEFText(language: language, text: String(decoding: payload.dropFirst(1 + Int(status & 0x3F)), as: UTF8.self), encoding: .utf8))
        case .media: return .media(type: String(decoding: type, as: UTF8.self), payload: payload)
        case .external: return .external(type: String(decoding: type, as: UTF8.self), payload: payload)
        case .absoluteURI: return .absoluteURI(String(decoding: type, as: UTF8.self))
        case .unknown: return .unknown(payload: payload)
        default: return .other(type: type, payload: payload)
        }
    }

    public static func uri(_ text: String) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x00] + Array(text.utf8))
    }

    public static func text(_ text: String, language: String = "en") -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [UInt8(language.utf8.count)] + Array(language.utf8) + Array(text.utf8))
    }
}

public struct NDEFMessage: Sendable, Hashable {
    public var records: [NDEFRecord]
    public init(records: [NDEFRecord]) { self.records = records }

    public init(parsing bytes: [UInt8], limits: NDEFLimits = .standard) throws(NDEFError) {
        guard bytes.count <= limits.maxMessageBytes else { throw NDEFError(code: .tooLarge, offset: nil, message: "message too large") }
        var records: [NDEFRecord] = []
        var at = 0
        func need(_ n: Int) throws(NDEFError) {
            guard at + n <= bytes.count else { throw NDEFError(code: .truncated, offset: at, message: "the message ends inside a record") }
        }
        while at < bytes.count {
            guard records.count < limits.maxRecords else { throw NDEFError(code: .tooLarge, offset: at, message: "too many records") }
            try need(2)
            let header = bytes[at]
            let short = header & 0x10 != 0, hasID = header & 0x08 != 0
            guard header & 0x20 == 0 else { throw NDEFError(code: .malformed, offset: at, message: "chunked record") }
            guard let tnf = NDEFTypeNameFormat(rawValue: header & 0x07) else { throw NDEFError(code: .malformed, offset: at, message: "TNF 7") }
            let typeLength = Int(bytes[at + 1])
            at += 2
            var payloadLength = 0
            if short {
                try need(1); payloadLength = Int(bytes[at]); at += 1
            } else {
                try need(4); payloadLength = bytes[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }; at += 4
            }
            var idLength = 0
            if hasID { try need(1); idLength = Int(bytes[at]); at += 1 }
            try need(typeLength + idLength + payloadLength)
            let type = Array(bytes[at..<(at + typeLength)]); at += typeLength
            let id = Array(bytes[at..<(at + idLength)]); at += idLength
            let payload = Array(bytes[at..<(at + payloadLength)]); at += payloadLength
            records.append(NDEFRecord(tnf: tnf, type: type, id: id, payload: payload))
            if header & 0x40 != 0 { break }
        }
        guard at == bytes.count, !records.isEmpty else { throw NDEFError(code: .malformed, offset: at, message: "trailing bytes or no record") }
        self.records = records
    }

    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        for (index, record) in records.enumerated() {
            var header = record.tnf.rawValue
            if index == 0 { header |= 0x80 }
            if index == records.count - 1 { header |= 0x40 }
            if !record.id.isEmpty { header |= 0x08 }
            let short = record.payload.count < 256
            if short { header |= 0x10 }
            out += [header, UInt8(record.type.count)]
            if short {
                out.append(UInt8(record.payload.count))
            } else {
                let n = record.payload.count
                out += [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            }
            if !record.id.isEmpty { out.append(UInt8(record.id.count)) }
            out += record.type + record.id + record.payload
        }
        return out
    }
}
