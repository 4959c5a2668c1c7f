extension NDEFRecord {
    /// A well-known URI record (RTD-URI 1.0), its prefix abbreviated by the longest identifier
    /// code that fits (`https://www.example.com` becomes `02` + `example.com`).
    public static func uri(_ uri: String, id: [UInt8] = []) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: WellKnownType.uri, id: id, payload: NDEFURIPrefix.abbreviate(uri))
    }

    /// A well-known Text record (RTD-Text 1.0); UTF-16 is written big-endian with its byte order mark.
    ///
    /// - Precondition: `language` has at most 63 bytes.
    public static func text(_ text: String, language: String = "en", encoding: NDEFText.Encoding = .utf8) -> NDEFRecord {
        self.text(NDEFText(language: language, text: text, encoding: encoding))
    }

    /// A well-known Text record holding `text`.
    public static func text(_ text: NDEFText) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: WellKnownType.text, payload: text.payload)
    }

    /// A Smart Poster (RTD-SP 1.0): a nested message of the URI record, a Text record per title,
    /// the action record when given, then `extra` records (size, type, icon...) as they are.
    public static func smartPoster(
        uri: String, titles: [NDEFText] = [], action: UInt8? = nil, extra: [NDEFRecord] = []
    ) -> NDEFRecord {
        var records = [NDEFRecord.uri(uri)] + titles.map { NDEFRecord.text($0) }
        if let action { records.append(NDEFRecord(tnf: .wellKnown, type: WellKnownType.action, payload: [action])) }
        records += extra
        return NDEFRecord(tnf: .wellKnown, type: WellKnownType.smartPoster, payload: NDEFMessage(records: records).encoded())
    }

    /// A well-known record of any type name (`Sp`, `Hr`, `act`...), with its payload as given.
    public static func wellKnown(_ type: String, id: [UInt8] = [], payload: [UInt8]) -> NDEFRecord {
        NDEFRecord(tnf: .wellKnown, type: Array(type.utf8), id: id, payload: payload)
    }

    /// A media-type record (TNF 2), e.g. `text/plain`.
    public static func media(_ type: String, id: [UInt8] = [], payload: [UInt8]) -> NDEFRecord {
        NDEFRecord(tnf: .media, type: Array(type.utf8), id: id, payload: payload)
    }

    /// An NFC Forum external type record (TNF 4), e.g. `example.com:thing`.
    public static func external(_ type: String, id: [UInt8] = [], payload: [UInt8]) -> NDEFRecord {
        NDEFRecord(tnf: .external, type: Array(type.utf8), id: id, payload: payload)
    }
}
