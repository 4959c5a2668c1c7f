// Part E's stand-in for part D's Smart Tap API (COMMON.md's signatures), so the session, config
// and CLI build before "D: Smart Tap API" lands. Removed when main has D's API.
@preconcurrency public import Crypto
public import ISO7816
public import VAS

public struct SmartTapCollector: Sendable, Hashable, CustomStringConvertible {
    public let collectorID: UInt32
    public let keyVersion: UInt32
    let key: P256.Signing.PrivateKey
    public init(collectorID: UInt32, keyVersion: UInt32, key: P256.Signing.PrivateKey) {
        self.collectorID = collectorID
        self.keyVersion = keyVersion
        self.key = key
    }
    public static func load(path: String, collectorID: UInt32, keyVersion: UInt32, policy: MerchantKeyFilePolicy) throws -> SmartTapCollector {
        let bytes = try KeyFile.readChecked(path: path, limit: 16_384, policy: policy)
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: String(decoding: bytes, as: UTF8.self)) else {
            struct NotP256: Error {}
            throw NotP256()
        }
        return SmartTapCollector(collectorID: collectorID, keyVersion: keyVersion, key: key)
    }
    public var publicKeyPEM: String { key.publicKey.pemRepresentation }
    public var description: String { "SmartTapCollector(\(collectorID), v\(keyVersion), <redacted>)" }
    public static func == (l: Self, r: Self) -> Bool { l.collectorID == r.collectorID && l.keyVersion == r.keyVersion && l.key.publicKey.rawRepresentation == r.key.publicKey.rawRepresentation }
    public func hash(into h: inout Hasher) { h.combine(collectorID); h.combine(keyVersion) }
}

public enum SmartTapMode: Sendable, Hashable {
    case passOnly, passOverPayment, passAndPayment
    public init(_ mode: VASMode) {
        switch mode {
        case .vasOnly: self = .passOnly
        case .vasOrPayment: self = .passOverPayment
        case .vasAndPayment: self = .passAndPayment
        }
    }
}

public struct SmartTapServiceObject: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable { case loyalty, offer, giftCard = "gift_card", generic }
    public var type: Kind
    public var issuerID: String?
    public var objectID: String?
    public var value: String?
}

public struct SmartTapOutcome: Sendable, Hashable {
    public var status: SmartTapStatus
    public var sw: StatusWord?
    public var code: UInt8?
    public var version: String?
    public var problem: String?
    public var customerID: String?
    public var tapID: String?
    public var objects: [SmartTapServiceObject]
}

public struct SmartTapLimits: Sendable, Hashable { public static let standard = SmartTapLimits() }

public struct SmartTapReader: Sendable {
    let collector: SmartTapCollector
    public init(collector: SmartTapCollector, limits: SmartTapLimits = .standard) { self.collector = collector }
    public func run<Failure: Error>(oseAnswer: [UInt8], mode: SmartTapMode, exchange: (CommandAPDU) throws(Failure) -> ResponseAPDU) throws(Failure) -> SmartTapOutcome {
        let response = try exchange(CommandAPDU(cla: 0x90, ins: 0x53, p1: 0, p2: 0, data: [UInt8(truncatingIfNeeded: collector.collectorID)], le: 0))
        return SmartTapOutcome(status: response.statusWord.isSuccess ? .success : .noPass, sw: response.statusWord, version: "0001", objects: [])
    }
}
