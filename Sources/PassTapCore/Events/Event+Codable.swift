import Foundation

extension Event: Codable {
    private enum CodingKeys: String, CodingKey {
        case seq, time, kind, reader, backend, reason, id, name, state
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(seq, forKey: .seq)
        try c.encode(RFC3339.string(from: time), forKey: .time)
        try c.encode(kind, forKey: .kind)
        try c.encode(reader, forKey: .reader)
        switch payload {
        case .backend(let name, let reason):
            try c.encode(name, forKey: .backend)
            try c.encode(reason, forKey: .reason)
        case .reader(let info):
            try c.encode(info.name, forKey: .name)
            try c.encode(info.backend, forKey: .backend)
            try c.encode(info.state, forKey: .state)
            try c.encode(info.reason, forKey: .reason)
        case .card(let card):
            try card.encode(to: encoder)
        case .cardRemoved:
            break
        case .readResult(let result):
            try result.encode(to: encoder)
        case .configReloaded(let reload):
            try reload.encode(to: encoder)
        case .configRejected(let rejection):
            try rejection.encode(to: encoder)
        case .forwardDropped(let dropped):
            try dropped.encode(to: encoder)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        seq = try c.decode(UInt64.self, forKey: .seq)
        let timeText = try c.decode(String.self, forKey: .time)
        guard let parsed = RFC3339.date(from: timeText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: c, debugDescription: "'\(timeText)' is not an RFC 3339 time")
        }
        time = parsed
        kind = try c.decode(EventKind.self, forKey: .kind)
        reader = try c.decodeIfPresent(ReaderID.self, forKey: .reader)
        switch kind {
        case .backendDown, .backendUp:
            payload = .backend(
                name: try c.decode(String.self, forKey: .backend),
                reason: try c.decodeIfPresent(String.self, forKey: .reason))
        case .readerAdded, .readerChanged, .readerRemoved:
            guard let reader else {
                throw DecodingError.keyNotFound(
                    CodingKeys.reader, .init(codingPath: c.codingPath, debugDescription: "reader events name their reader"))
            }
            payload = .reader(
                ReaderInfo(
                    id: reader,
                    name: try c.decode(String.self, forKey: .name),
                    backend: try c.decode(String.self, forKey: .backend),
                    state: try c.decode(ReaderInfo.State.self, forKey: .state),
                    reason: try c.decodeIfPresent(String.self, forKey: .reason)))
        case .cardInserted:
            payload = .card(try CardInfo(from: decoder))
        case .cardRemoved:
            payload = .cardRemoved
        case .readResult:
            payload = .readResult(try ReadResult(from: decoder))
        case .configReloaded:
            payload = .configReloaded(try ConfigReloaded(from: decoder))
        case .configRejected:
            payload = .configRejected(try ConfigRejected(from: decoder))
        case .forwardDropped:
            payload = .forwardDropped(try ForwardDropped(from: decoder))
        }
    }
}
