public import PassTapCore

/// The params of `card.transmit`: `{"reader": "pcsc:...", "apdu": "00a4040007a0000000031010", "raw": false}`.
public struct CardTransmitParams: Sendable, Hashable, Codable {
    /// The exact reader id.
    public var reader: ReaderID
    /// The command APDU as hex, any case; spaces allowed.
    public var apdu: String
    /// `true` to send exactly this APDU once; `false` (default) follows `61xx` and `6Cxx`.
    public var raw: Bool

    /// Creates the params.
    public init(reader: ReaderID, apdu: String, raw: Bool = false) {
        self.reader = reader
        self.apdu = apdu
        self.raw = raw
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ParamsKey.self)
        try ParamsKey.rejectUnknown(in: container, known: ["reader", "apdu", "raw"])
        reader = try container.decode(ReaderID.self, forKey: ParamsKey("reader"))
        apdu = try container.decode(String.self, forKey: ParamsKey("apdu"))
        raw = try container.decodeIfPresent(Bool.self, forKey: ParamsKey("raw")) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ParamsKey.self)
        try container.encode(reader, forKey: ParamsKey("reader"))
        try container.encode(apdu, forKey: ParamsKey("apdu"))
        try container.encode(raw, forKey: ParamsKey("raw"))
    }
}
