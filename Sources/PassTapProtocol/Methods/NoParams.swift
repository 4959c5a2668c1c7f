/// The params of a method that takes none: absent, `null`, or an empty object `{}`.
public struct NoParams: Sendable, Hashable, Codable {
    /// No params.
    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ParamsKey.self)
        try ParamsKey.rejectUnknown(in: container, known: [])
    }

    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: ParamsKey.self)
    }
}
