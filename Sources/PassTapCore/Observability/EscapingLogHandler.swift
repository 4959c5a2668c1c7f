import ISO7816
public import Logging

/// A `LogHandler` that escapes, with ``UntrustedText/escaped(_:)``, the message and every
/// metadata value before handing them to another handler, so no string a card, a phone or a
/// reader supplied (a reader's name, an error that quotes a label) can drive the terminal that
/// shows the log, or forge a log line.
///
/// `passtapd` wraps its `StreamLogHandler` in one. The handler's own metadata, its metadata
/// provider's and the event's are merged here (event wins, as `StreamLogHandler` does) and an
/// attached error becomes `error.message` and `error.type`; the wrapped handler gets the result
/// and keeps no metadata of its own.
public struct EscapingLogHandler: LogHandler {
    private var wrapped: any LogHandler
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// Wraps `handler`; its log level becomes this handler's.
    public init(wrapping handler: any LogHandler) {
        wrapped = handler
        metadataProvider = handler.metadataProvider
        wrapped.metadata = [:]
        wrapped.metadataProvider = nil
    }

    public var logLevel: Logger.Level {
        get { wrapped.logLevel }
        set { wrapped.logLevel = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var escaped = event
        escaped.message = "\(UntrustedText.escaped(event.message.description))"
        escaped.metadata = merged.mapValues(Self.escape)
        escaped.error = nil
        wrapped.log(event: escaped)
    }

    /// A metadata value with every string in it escaped, nested ones included.
    static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): return .string(UntrustedText.escaped(text))
        case .stringConvertible(let convertible): return .string(UntrustedText.escaped(convertible.description))
        case .array(let values): return .array(values.map(escape))
        case .dictionary(let dictionary): return .dictionary(dictionary.mapValues(escape))
        }
    }
}
