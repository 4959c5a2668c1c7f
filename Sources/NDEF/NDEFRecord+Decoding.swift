extension NDEFRecord {
    /// The well-known type names this codec decodes (NFC Forum RTD 1.0 local names).
    enum WellKnownType {
        /// `U`, RTD-URI.
        static let uri: [UInt8] = Array("U".utf8)
        /// `T`, RTD-Text.
        static let text: [UInt8] = Array("T".utf8)
        /// `Sp`, RTD-SP.
        static let smartPoster: [UInt8] = Array("Sp".utf8)
        /// `act`, the Smart Poster's action (a local type inside `Sp`).
        static let action: [UInt8] = Array("act".utf8)
    }

    /// What the record means (see ``NDEFContent`` for the table). Never throws: a record that
    /// breaks its type's rules is ``NDEFContent/malformed(_:)``.
    ///
    /// - Parameter limits: the limits its message was parsed with; a Smart Poster's nested
    ///   message is parsed one level deeper (``nestedMessage(limits:)``).
    public func decoded(limits: NDEFLimits = .standard) -> NDEFContent {
        switch tnf {
        case .empty:
            return .empty
        case .wellKnown:
            switch type {
            case WellKnownType.uri:
                switch NDEFURIPrefix.expand(payload) {
                case .success(let uri): return .uri(uri)
                case .failure(let failure): return .malformed(failure.reason)
                }
            case WellKnownType.text:
                do throws(NDEFDecodingFailure) {
                    return .text(try NDEFText(payload: payload))
                } catch {
                    return .malformed(error.reason)
                }
            case WellKnownType.smartPoster:
                let message: NDEFMessage
                do throws(NDEFError) {
                    message = try nestedMessage(limits: limits)
                } catch {
                    return .malformed("the Smart Poster's nested message: \(error)")
                }
                do throws(NDEFDecodingFailure) {
                    return .smartPoster(try NDEFSmartPoster(message: message))
                } catch {
                    return .malformed(error.reason)
                }
            default:
                return .other(type: type, payload: payload)
            }
        case .media:
            guard let name = Self.ascii(type) else { return .malformed("the media type is not printable ASCII") }
            return .media(type: name, payload: payload)
        case .absoluteURI:
            guard let uri = String(validating: type, as: UTF8.self) else { return .malformed("the absolute URI is not UTF-8") }
            return .absoluteURI(uri)
        case .external:
            guard let name = Self.ascii(type) else { return .malformed("the external type name is not printable ASCII") }
            return .external(type: name, payload: payload)
        case .unknown:
            return .unknown(payload: payload)
        case .unchanged:
            return .other(type: type, payload: payload)
        }
    }

    private static func ascii(_ bytes: [UInt8]) -> String? {
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
