// TEMPORARY stand-in for part A's NDEF codec API (COMMON.md signatures), internal to SmartTap so
// it builds before "A: NDEF codec API" lands. Deleted when main has A's codec: nothing else here
// refers to this file, only to the names the codec exports.
import NDEF

struct NDEFLimits: Sendable, Hashable {
    var maxMessageBytes: Int
    var maxRecords: Int
    var maxDepth: Int
    static let standard = NDEFLimits(maxMessageBytes: 65_536, maxRecords: 256, maxDepth: 4)
}

struct NDEFError: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

struct NDEFRecord: Sendable, Hashable {
    var tnf: NDEFTypeNameFormat
    var type: [UInt8]
    var id: [UInt8]
    var payload: [UInt8]
    init(tnf: NDEFTypeNameFormat, type: [UInt8], id: [UInt8] = [], payload: [UInt8]) {
        self.tnf = tnf
        self.type = type
        self.id = id
        self.payload = payload
    }
}

struct NDEFMessage: Sendable, Hashable {
    var records: [NDEFRecord]
    init(records: [NDEFRecord]) { self.records = records }

    init(parsing bytes: [UInt8], limits: NDEFLimits = .standard) throws(NDEFError) {
        guard bytes.count <= limits.maxMessageBytes else { throw NDEFError(message: "message too long") }
        var records: [NDEFRecord] = []
        var index = 0
        while index < bytes.count {
            guard records.count < limits.maxRecords else { throw NDEFError(message: "too many records") }
            let header = bytes[index]
            index += 1
            func take(_ count: Int) throws(NDEFError) -> [UInt8] {
                guard count >= 0, bytes.count - index >= count else { throw NDEFError(message: "truncated record") }
                defer { index += count }
                return Array(bytes[index..<(index + count)])
            }
            let typeLength = Int(try take(1)[0])
            let payloadLength: Int
            if header & 0x10 != 0 {
                payloadLength = Int(try take(1)[0])
            } else {
                payloadLength = try take(4).reduce(0) { $0 << 8 | Int($1) }
            }
            let idLength = header & 0x08 != 0 ? Int(try take(1)[0]) : 0
            guard let tnf = NDEFTypeNameFormat(rawValue: header & 0x07), header & 0x20 == 0 else {
                throw NDEFError(message: "unsupported record")
            }
            let type = try take(typeLength)
            let id = try take(idLength)
            let payload = try take(payloadLength)
            records.append(NDEFRecord(tnf: tnf, type: type, id: id, payload: payload))
            if header & 0x40 != 0 { break }
        }
        guard index == bytes.count, !records.isEmpty else { throw NDEFError(message: "bad message end") }
        self.records = records
    }

    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        for (offset, record) in records.enumerated() {
            var header = record.tnf.rawValue
            if offset == 0 { header |= 0x80 }
            if offset == records.count - 1 { header |= 0x40 }
            let short = record.payload.count < 256
            if short { header |= 0x10 }
            if !record.id.isEmpty { header |= 0x08 }
            bytes.append(header)
            bytes.append(UInt8(record.type.count))
            if short {
                bytes.append(UInt8(record.payload.count))
            } else {
                let n = UInt32(record.payload.count)
                bytes += [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            }
            if !record.id.isEmpty { bytes.append(UInt8(record.id.count)) }
            bytes += record.type + record.id + record.payload
        }
        return bytes
    }
}
