public import ISO7816

/// The phone's answer to one GET VAS DATA, classified (vas-protocol.md §4.1, §4.2).
///
/// ```
/// 70 L                      proprietary template (long-form length allowed)
///    9F2A L <mobile token>  optional, seen empty
///    9F27 L <cryptogram>    56...120 bytes
/// 90 00
/// ```
/// Never throws: a status word other than `90 00` maps through ``VASReadStatus/init(statusWord:)``,
/// and a `90 00` answer that is not one `70` template, lacks `9F27` in full VAS, holds `9F27` or
/// `9F2A` more than once (which one would the phone mean?), or carries a cryptogram of impossible
/// length is `malformed_response` with ``problem`` saying why.
/// In URL-only mode an empty answer or a template without `9F27` is a success.
public struct VASDataResponse: Hashable, Sendable {
    /// Limits for the answer: it is at most about 130 bytes (§4.4), two levels deep.
    public static let tlvLimits = TLVLimits(maxDepth: 2, maxNodes: 16)

    /// The status word as received.
    public let statusWord: StatusWord
    /// The classified outcome: a status-word status, `success` or `malformed_response`.
    public let status: VASReadStatus
    /// The `9F2A` mobile token, when sent.
    public let mobileToken: [UInt8]?
    /// The `9F27` cryptogram; present whenever ``status`` is `success` in full VAS.
    public let cryptogram: VASCryptogram?
    /// Why the answer is `malformed_response`; `nil` otherwise.
    public let problem: String?

    /// Classifies an answer; `expectsCryptogram` is false for URL-only requests.
    public init(_ response: ResponseAPDU, expectsCryptogram: Bool = true) {
        let swStatus = VASReadStatus(statusWord: response.statusWord)
        guard swStatus == .success else {
            self.init(statusWord: response.statusWord, status: swStatus)
            return
        }
        if response.data.isEmpty, !expectsCryptogram {
            self.init(statusWord: response.statusWord, status: .success)
            return
        }
        let nodes: [TLVNode]
        do {
            nodes = try BERTLVParser.parse(response.data, limits: Self.tlvLimits)
        } catch {
            self.init(malformed: response.statusWord, "\(error)")
            return
        }
        guard nodes.count == 1, let template = nodes.first, template.tag == VASTag.dataTemplate else {
            let found = nodes.map(\.tag.hex).joined(separator: " ")
            self.init(malformed: response.statusWord, "expected one 70 template, found \(found.isEmpty ? "nothing" : found)")
            return
        }
        for tag in [VASTag.cryptogram, VASTag.mobileToken] {
            let count = template.children?.filter { $0.tag == tag }.count ?? 0
            guard count <= 1 else {
                self.init(malformed: response.statusWord, "the 70 template holds \(count) \(tag.hex) objects; one is allowed")
                return
            }
        }
        let token = template.first(VASTag.mobileToken)?.value
        guard let value = template.first(VASTag.cryptogram)?.value else {
            if expectsCryptogram {
                self.init(malformed: response.statusWord, "70 template without a 9F27 cryptogram")
            } else {
                self.init(statusWord: response.statusWord, status: .success, mobileToken: token)
            }
            return
        }
        guard let cryptogram = VASCryptogram(bytes: value) else {
            self.init(
                malformed: response.statusWord,
                "cryptogram of \(value.count) bytes; it must be \(VASCryptogram.minimumLength)...\(VASCryptogram.maximumLength)"
            )
            return
        }
        self.init(statusWord: response.statusWord, status: .success, mobileToken: token, cryptogram: cryptogram)
    }

    private init(
        statusWord: StatusWord, status: VASReadStatus, mobileToken: [UInt8]? = nil,
        cryptogram: VASCryptogram? = nil, problem: String? = nil
    ) {
        self.statusWord = statusWord
        self.status = status
        self.mobileToken = mobileToken
        self.cryptogram = cryptogram
        self.problem = problem
    }

    private init(malformed statusWord: StatusWord, _ problem: String) {
        self.init(statusWord: statusWord, status: .malformedResponse, problem: problem)
    }
}
