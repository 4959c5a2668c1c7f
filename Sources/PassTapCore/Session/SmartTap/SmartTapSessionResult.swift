public import ISO7816
public import SmartTap
public import VAS

/// The Google Smart Tap part of a tap, published as `read.result`'s `smarttap`: `null` when Smart
/// Tap is off or the phone is not an Android phone (its `OSE.VAS.01` answer did not name
/// `AndroidPay`).
///
/// ```json
/// {"offered": true, "collector_id": 20180608, "version": "0001", "status": "success", "sw": "9000",
///  "code": null, "problem": null, "customer_id": "...", "tap_id": "...", "objects": [ ... ],
///  "withheld": null}
/// ```
/// `status` maps the phone's status words (``SmartTapStatus``; `null` when the tap ended before
/// an answer, see the `read.result`'s `error`); `code` is the low byte of a `94xx` refusal, hex.
/// The payload (`customer_id`, `tap_id`, `objects`) is null unless the status is `success` and
/// the subscriber may see passes: `withheld` says when it may not (``withholding(_:)``).
public struct SmartTapSessionResult: Sendable, Hashable {
    /// Whether the phone took up Smart Tap: it gave its Smart Tap version.
    public var offered: Bool
    /// The collector the reader asked for passes as (`[smarttap] collector_id`): whose passes
    /// `objects` are. `nil` in a record an older daemon wrote.
    public var collectorID: UInt32?
    /// The Smart Tap version the phone gave, as published by the reader.
    public var version: String?
    /// The outcome; `nil` when the tap ended before the phone answered.
    public var status: SmartTapStatus?
    /// The last status word the phone sent.
    public var sw: StatusWord?
    /// The low byte of a `94xx` refusal: why the phone refused the terminal.
    public var code: UInt8?
    /// Why the status is not `success`, or, with `success`, which values were over the caps and
    /// left out; for a person (never key material or pass data).
    public var problem: String?
    /// The customer id the phone sent (payload).
    public var customerID: String?
    /// The tap id the phone sent (payload).
    public var tapID: String?
    /// The service objects read: loyalty, offer, gift card... (payload).
    public var objects: [SmartTapPublishedObject]
    /// Why the payload is left out for this subscriber; `nil` when nothing is withheld.
    public var withheld: ReadWithholding?

    /// Creates a result.
    public init(
        offered: Bool, version: String? = nil, status: SmartTapStatus? = nil, sw: StatusWord? = nil, code: UInt8? = nil,
        problem: String? = nil, customerID: String? = nil, tapID: String? = nil, objects: [SmartTapPublishedObject] = [],
        collectorID: UInt32? = nil
    ) {
        self.offered = offered
        self.collectorID = collectorID
        self.version = version
        self.status = status
        self.sw = sw
        self.code = code
        self.problem = problem
        self.customerID = customerID
        self.tapID = tapID
        self.objects = objects
    }

    /// What the Smart Tap reader came to, as published: within ``maximumVersionCharacters`` and
    /// ``maximumValueCharacters`` (the phone chooses these bytes: a hostile phone needs no
    /// collector secret to pass the MAC check, so nothing it sends may grow the event line past
    /// its 64 KiB), and with the payload only when the status is `success`.
    public init(_ outcome: SmartTapOutcome) {
        var left = 0
        func bounded(_ text: String?) -> String? {
            guard let text, text.count > Self.maximumValueCharacters else { return text }
            left += 1
            return nil
        }
        let success = outcome.status == .success
        let version = outcome.version.flatMap { $0.count > Self.maximumVersionCharacters ? nil : $0 }
        let objects: [SmartTapPublishedObject] = success
            ? outcome.objects.prefix(Self.maximumObjects).map { object in
                SmartTapPublishedObject(
                    type: object.type.rawValue, issuerID: bounded(object.issuerID), objectID: bounded(object.objectID),
                    value: bounded(object.value))
            } : []
        let customerID = success ? bounded(outcome.customerID) : nil
        let tapID = success ? bounded(outcome.tapID) : nil
        var notes: [String] = []
        if let problem = outcome.problem { notes.append(problem) }
        if outcome.version != nil, version == nil {
            notes.append("the phone's Smart Tap version is longer than \(Self.maximumVersionCharacters / 2) bytes: left out")
        }
        if success, outcome.objects.count > Self.maximumObjects {
            let over = outcome.objects.count - Self.maximumObjects
            notes.append("\(over) service object\(over == 1 ? "" : "s") past the first \(Self.maximumObjects) left out")
        }
        if left > 0 { notes.append("\(left) value\(left == 1 ? "" : "s") longer than \(Self.maximumValueCharacters) characters left out") }
        self.init(
            offered: outcome.version != nil, version: version, status: outcome.status, sw: outcome.sw, code: outcome.code,
            problem: notes.isEmpty ? nil : notes.joined(separator: "; "), customerID: customerID, tapID: tapID, objects: objects)
    }

    /// The longest `version` published, in hex characters (8 bytes, as VAS's `version`).
    public static let maximumVersionCharacters = 16
    /// The longest customer id, tap id, issuer id, object id or value published; a longer one is
    /// `null`, and `problem` counts it.
    public static let maximumValueCharacters = 256
    /// The most service objects published (the reader keeps at most 16).
    public static let maximumObjects = 16

    /// Whether a pass was read and decrypted in this tap.
    public var readAPass: Bool { status == .success }

    /// This result as a subscriber sees it that may not see passes, for `reason`: the customer
    /// id, the tap id and the objects are gone, and `withheld` says why. Offered, the collector,
    /// version, status, status word, code and problem stay.
    public func withholding(_ reason: ReadWithholding) -> SmartTapSessionResult {
        var result = self
        result.customerID = nil
        result.tapID = nil
        result.objects = []
        result.withheld = reason
        return result
    }
}

extension SmartTapSessionResult: Codable {
    private enum CodingKeys: String, CodingKey {
        case offered, collectorID = "collector_id", version, status, sw, code, problem, customerID = "customer_id", tapID = "tap_id", objects, withheld
    }

    /// Every member is written, `null` when absent; `objects` is `null` when withheld.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(offered, forKey: .offered)
        try c.encode(Nullable(wrappedValue: collectorID), forKey: .collectorID)
        try c.encode(Nullable(wrappedValue: version), forKey: .version)
        try c.encode(Nullable(wrappedValue: status), forKey: .status)
        try c.encode(Nullable(wrappedValue: sw), forKey: .sw)
        try c.encode(Nullable(wrappedValue: code.map { [$0].hexString }), forKey: .code)
        try c.encode(Nullable(wrappedValue: problem), forKey: .problem)
        try c.encode(Nullable(wrappedValue: customerID), forKey: .customerID)
        try c.encode(Nullable(wrappedValue: tapID), forKey: .tapID)
        try c.encode(Nullable(wrappedValue: withheld == nil ? objects : nil), forKey: .objects)
        try c.encode(Nullable(wrappedValue: withheld), forKey: .withheld)
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        offered = try c.decode(Bool.self, forKey: .offered)
        collectorID = try c.decodeIfPresent(UInt32.self, forKey: .collectorID)
        version = try c.decodeIfPresent(String.self, forKey: .version)
        status = try c.decodeIfPresent(SmartTapStatus.self, forKey: .status)
        sw = try c.decodeIfPresent(StatusWord.self, forKey: .sw)
        code = try c.decodeIfPresent(String.self, forKey: .code).flatMap { try? [UInt8](hex: $0) }.flatMap { $0.count == 1 ? $0[0] : nil }
        problem = try c.decodeIfPresent(String.self, forKey: .problem)
        customerID = try c.decodeIfPresent(String.self, forKey: .customerID)
        tapID = try c.decodeIfPresent(String.self, forKey: .tapID)
        objects = try c.decodeIfPresent([SmartTapPublishedObject].self, forKey: .objects) ?? []
        withheld = try c.decodeIfPresent(ReadWithholding.self, forKey: .withheld)
    }
}
