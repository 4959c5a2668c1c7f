/// The URI identifier codes of NFC Forum RTD-URI 1.0 §3.2.2, table 3: the first payload byte of a
/// `U` record stands for the prefix of the URI, and the rest of the payload (UTF-8) follows it.
///
/// Codes `24`-`FF` are reserved; a record using one is decoded as malformed rather than guessed.
enum NDEFURIPrefix {
    /// Index = identifier code.
    static let table: [String] = [
        "",  // 00: no prefix
        "http://www.", "https://www.", "http://", "https://",  // 01-04
        "tel:", "mailto:", "ftp://anonymous:anonymous@", "ftp://ftp.",  // 05-08
        "ftps://", "sftp://", "smb://", "nfs://",  // 09-0C
        "ftp://", "dav://", "news:", "telnet://",  // 0D-10
        "imap:", "rtsp://", "urn:", "pop:",  // 11-14
        "sip:", "sips:", "tftp:", "btspp://",  // 15-18
        "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://",  // 19-1C
        "file://", "urn:epc:id:", "urn:epc:tag:", "urn:epc:pat:",  // 1D-20
        "urn:epc:raw:", "urn:epc:", "urn:nfc:",  // 21-23
    ]

    /// The payload for `uri`: the code of the longest prefix it starts with (`00` if none), then
    /// the rest in UTF-8.
    static func abbreviate(_ uri: String) -> [UInt8] {
        let bytes = Array(uri.utf8)
        var best = 0
        for (code, prefix) in table.enumerated() where code > 0 {
            let prefixBytes = Array(prefix.utf8)
            if prefixBytes.count > table[best].utf8.count, bytes.starts(with: prefixBytes) { best = code }
        }
        return [UInt8(best)] + bytes.dropFirst(table[best].utf8.count)
    }

    /// The URI a `U` payload stands for, or why it stands for none.
    static func expand(_ payload: [UInt8]) -> Result<String, NDEFDecodingFailure> {
        guard let code = payload.first else { return .failure("a URI record with no payload (it needs the identifier code)") }
        guard Int(code) < table.count else {
            return .failure("URI identifier code \([code].ndefHex) is reserved (RTD-URI 1.0 defines 00-23)")
        }
        guard let rest = String(validating: payload.dropFirst(), as: UTF8.self) else {
            return .failure("the URI after the identifier code is not UTF-8")
        }
        return .success(table[Int(code)] + rest)
    }
}

/// Why a record's payload does not follow its type: the reason of ``NDEFContent/malformed(_:)``.
struct NDEFDecodingFailure: Error, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
    var reason: String

    init(_ reason: String) { self.reason = reason }
    init(stringLiteral value: String) { reason = value }
    init(stringInterpolation: DefaultStringInterpolation) { reason = String(stringInterpolation: stringInterpolation) }
}
