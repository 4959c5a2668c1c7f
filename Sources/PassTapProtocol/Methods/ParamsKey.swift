/// Any member name of a params object, so that decoders can refuse names they do not know (a
/// misspelt `sinse` must not silently mean "no since").
struct ParamsKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// Throws a `DecodingError` naming the first member of `container` not in `known`.
    static func rejectUnknown(in container: KeyedDecodingContainer<ParamsKey>, known: Set<String>) throws {
        for key in container.allKeys where !known.contains(key.stringValue) {
            let expected = known.isEmpty ? "this method takes no params" : "known: " + known.sorted().joined(separator: ", ")
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container, debugDescription: "unknown parameter '\(key.stringValue)' (\(expected))")
        }
    }
}
