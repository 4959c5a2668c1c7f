/// A Smart Poster (NFC Forum RTD-SP 1.0): a well-known `Sp` record whose payload is a message
/// holding one URI record, any number of Text records (titles, one per language), an optional
/// action record (`act`, one byte: 0 open, 1 save, 2 edit) and optional size, type and icon
/// records, which stay in ``message``.
public struct NDEFSmartPoster: Sendable, Hashable {
    /// The nested message, every record as it was.
    public var message: NDEFMessage
    /// The URI record's URI (RTD-SP requires exactly one; decoding refuses zero or several).
    public var uri: String?
    /// The Text records.
    public var titles: [NDEFText]
    /// The action record's byte, when there is one.
    public var action: UInt8?

    /// Creates a Smart Poster's content.
    public init(message: NDEFMessage, uri: String?, titles: [NDEFText], action: UInt8?) {
        self.message = message
        self.uri = uri
        self.titles = titles
        self.action = action
    }

    /// Reads the nested message of an `Sp` record.
    init(message: NDEFMessage) throws(NDEFDecodingFailure) {
        var uris: [String] = []
        var titles: [NDEFText] = []
        var action: UInt8?
        for record in message.records where record.tnf == .wellKnown {
            switch record.type {
            case NDEFRecord.WellKnownType.uri:
                switch NDEFURIPrefix.expand(record.payload) {
                case .success(let uri): uris.append(uri)
                case .failure(let failure): throw NDEFDecodingFailure("the Smart Poster's URI record: \(failure.reason)")
                }
            case NDEFRecord.WellKnownType.text:
                do throws(NDEFDecodingFailure) {
                    titles.append(try NDEFText(payload: record.payload))
                } catch {
                    throw NDEFDecodingFailure("a Smart Poster title: \(error.reason)")
                }
            case NDEFRecord.WellKnownType.action:
                guard let byte = record.payload.first else { throw "the Smart Poster's action record is empty" }
                guard action == nil else { throw "the Smart Poster has more than one action record" }
                action = byte
            default:
                continue
            }
        }
        guard uris.count == 1 else {
            throw NDEFDecodingFailure("the Smart Poster holds \(uris.count) URI records (RTD-SP 1.0 requires exactly one)")
        }
        self.init(message: message, uri: uris[0], titles: titles, action: action)
    }
}
