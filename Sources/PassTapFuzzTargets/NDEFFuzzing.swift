import ISO7816
import NDEF

/// The NDEF codec on any bytes, as a tag's NDEF message or a Smart Tap answer: the parser returns
/// or throws `NDEFError`, never traps; what it returns stays within its limits; re-encoding parses
/// back to the same records; every record decodes (never traps) and its URI, Text or Smart Poster
/// content, written again with the constructors, decodes to the same content. Each record's
/// payload is also tried as a nested message (after 0, 1 and 2 bytes at the top, as Smart Tap's
/// records carry them; whole payloads below, so the work stays linear), descending until the depth
/// limit stops it.
enum NDEFFuzzing {
    static let limits = [NDEFLimits.standard, NDEFLimits(maxMessageBytes: 1_024, maxRecords: 8, maxDepth: 3)]

    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        for limits in limits {
            guard let message = try? NDEFMessage(parsing: input, limits: limits) else { continue }
            try check(message, input: input, limits: limits, depth: 1, maxDepth: limits.maxDepth)
        }
    }

    /// `limits` are those of this level (``NDEFLimits/nested`` once per level down); `maxDepth` the top's.
    private static func check(_ message: NDEFMessage, input: [UInt8], limits: NDEFLimits, depth: Int, maxDepth: Int) throws(FuzzFinding) {
        try require(depth <= maxDepth, "a message parsed at depth \(depth) with a limit of \(maxDepth)")
        try require(!message.records.isEmpty && message.records.count <= limits.maxRecords, "\(message.records.count) records parsed with a limit of \(limits.maxRecords)")
        let payloadBytes = message.records.reduce(0) { $0 + $1.payload.count }
        try require(payloadBytes <= input.count, "\(payloadBytes) payload bytes from \(input.count) bytes of input")
        let encoded = message.encoded()
        try require(encoded.count <= input.count, "re-encoding \(input.count) bytes gave \(encoded.count)")
        let again: NDEFMessage
        do throws(NDEFError) {
            again = try NDEFMessage(parsing: encoded, limits: limits)
        } catch {
            throw FuzzFinding("re-encoded message \(encoded.hexString) no longer parses: \(error)")
        }
        try require(again == message, "re-encoded message parses to other records: \(input.hexString) -> \(encoded.hexString)")
        for record in message.records {
            try checkContent(of: record, limits: limits)
            for prefix in depth == 1 ? 0...2 : 0...0 {
                guard let nested = try? record.nestedMessage(limits: limits, skipping: prefix) else { continue }
                try check(nested, input: Array(record.payload.dropFirst(prefix)), limits: limits.nested, depth: depth + 1, maxDepth: maxDepth)
            }
        }
    }

    private static func checkContent(of record: NDEFRecord, limits: NDEFLimits) throws(FuzzFinding) {
        let content = record.decoded(limits: limits)
        switch content {
        case .uri(let uri):
            try require(NDEFRecord.uri(uri).decoded() == content, "URI \(uri) does not round-trip")
        case .text(let text):
            try require(NDEFRecord.text(text).decoded() == content, "Text \(text) does not round-trip")
        case .smartPoster(let poster):
            guard let uri = poster.uri else { throw FuzzFinding("a Smart Poster decoded without its URI") }
            guard case .smartPoster(let again) = NDEFRecord.smartPoster(uri: uri, titles: poster.titles, action: poster.action).decoded(limits: limits) else {
                throw FuzzFinding("Smart Poster \(uri) does not round-trip")
            }
            try require(
                again.uri == poster.uri && again.titles == poster.titles && again.action == poster.action,
                "Smart Poster \(uri) round-trips to another poster")
        case .malformed(let reason):
            try require(!reason.isEmpty, "a malformed record without a reason")
        default:
            break
        }
    }
}
