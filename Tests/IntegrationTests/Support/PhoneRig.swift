import ForwardSettings
import WebSettings
import Foundation
import Testing
import VAS

#if canImport(Glibc)
import Glibc
import Wallets
#endif

/// The scenario rig with a phone: a ``Rig`` whose virtual iPhone (`scripts/rig/virtual_iphone.py`,
/// which encrypts with Python's `cryptography`, not our code) holds the coffee pass, and a
/// ledger subscribed from the first event, so a scenario can also check that it saw every event
/// once.
///
/// The rig's folder holds three merchant keys, `loyalty.pem`, `coffee.pem` and `stranger.pem`
/// (the last configured for no merchant); ``config(merchants:session:vas:socket:extra:keyFolder:)``
/// writes a config that names them.
///
/// With `android`, one card is a virtual Android phone (`scripts/rig/virtual_android.py`, its own
/// cryptography in Python) with two Google Wallet passes of collector ``collectorID``: the loyalty
/// pass ``androidLoyaltyID`` (value ``message``) and an offer; the folder then also holds the
/// collector's key, `collector.pem`, which ``smartTap(keyVersion:)`` configures.
final class PhoneRig {
    /// Which card the Android phone is, if any.
    enum Android: Equatable {
        /// None: card 1 is the iPhone.
        case none
        /// Card 1 is the Android phone (no iPhone).
        case only
        /// Card 2, on the second reader, is the Android phone; card 1 stays the iPhone.
        case second
        /// Card 2, on the second reader, is the Android phone; card 1 is the tag of this
        /// virtual_card.py profile (`ntag215-ndef`...) instead of the iPhone.
        case besideATag(String)
    }

    static let collectorID = 20_180_608
    static let androidLoyaltyID = "00000000000000A1"
    static let androidOfferID = "00000000000000B2"
    static let androidOffer = "10% off"
    static let customerID = "00112233445566778899AABBCCDDEEFF"
    static let loyalty = "pass.com.example.loyalty"
    static let coffee = "pass.com.example.coffee"
    /// The coffee pass's message.
    static let message = "member 0042"

    let rig: Rig
    let ledger: EventLedger
    /// The rows of `docs/reliability.md` on this daemon (written only by the suites that add rows).
    let report: ReliabilityReport
    /// Each key's id (hex), by its file name without `.pem`.
    let keyIDs: [String: String]
    var coffeeKeyID: String { keyIDs["coffee"] ?? "" }
    var strangerKeyID: String { keyIDs["stranger"] ?? "" }

    /// Starts the rig with `config`. `phoneKey` names the key file the phone encrypts the coffee
    /// pass for. With `waitForReader`, returns once the ledger has seen the reader added (a
    /// config with no reader passes `false`). `secrets` are written to the rig's folder, mode
    /// 0600, by file name (web token files).
    init(
        config: String, phoneKey: String = "coffee.pem", waitForReader: Bool = true, secrets: [String: String] = [:], android: Android = .none
    ) throws {
        var ids: [String: String] = [:]
        let androidArguments = ["--phone", "{rig}/android.json"]
        let (firstCard, secondCard): ([String], [String]?) =
            switch android {
            case .none: (["--phone", "{rig}/phone.json"], nil)
            case .only: (androidArguments, nil)
            case .second: (["--phone", "{rig}/phone.json"], androidArguments)
            case .besideATag(let profile): (["--profile", profile], androidArguments)
            }
        rig = try Rig(
            config: config, cardArguments: firstCard, secondCardArguments: secondCard
        ) { folder in
            for name in ["loyalty", "coffee", "stranger"] {
                let key = MerchantKey.generate()
                try key.write(toFile: folder.appendingPathComponent("\(name).pem").path, format: .sec1)
                ids[name] = key.keyID.hex
            }
            let phone: [String: Any] = [
                "passes": [
                    ["pass_type_id": PhoneRig.coffee, "key": folder.appendingPathComponent(phoneKey).path, "message": PhoneRig.message]
                ]
            ]
            try JSONSerialization.data(withJSONObject: phone).write(to: folder.appendingPathComponent("phone.json"))
            if android != .none { try PhoneRig.writeAndroidPhone(in: folder) }
            for (name, secret) in secrets {
                let path = folder.appendingPathComponent(name).path
                guard FileManager.default.createFile(atPath: path, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
                    throw Rig.Failure(description: "cannot write \(path)")
                }
            }
        }
        keyIDs = ids
        do {
            ledger = try EventLedger(rig: rig)
            if waitForReader { try ledger.next("reader.added") }
        } catch {
            rig.stop()
            throw error
        }
        report = ReliabilityReport(pid: rig.daemonPID)
    }

    /// A config with `[vas]` on and `merchants` in order, each with its key file of the rig's
    /// folder (`stranger.pem` for an unknown pass type), named relative to the config file or
    /// with `keyFolder` (`{rig}/` for the full path) in front. `socket` adds `[socket]` keys,
    /// `session` and `vas` the keys of those tables, `extra` whole tables at the end.
    static func config(
        merchants: [String] = [loyalty, coffee], session: String = "aids = [\"A0000000041010\"]", vas: String = "",
        socket: String = "", extra: String = "", keyFolder: String = ""
    ) -> String {
        var text = "\(socket)\n[session]\n\(session)\n[vas]\nenabled = true\n\(vas)\n"
        for merchant in merchants {
            let key = merchant == coffee ? "coffee" : merchant == loyalty ? "loyalty" : "stranger"
            text += "[[vas.merchants]]\npass_type_id = \"\(merchant)\"\nkeys = [\"\(keyFolder)\(key).pem\"]\n"
        }
        return text + extra
    }

    /// The collector's key (`collector.pem`, mode 0600) and the Android phone's file (`android.json`)
    /// in `folder`: the phone trusts that key, version 1, and holds a loyalty pass and an offer.
    private static func writeAndroidPhone(in folder: URL) throws {
        let key = MerchantKey.generate()
        let path = folder.appendingPathComponent("collector.pem").path
        try key.write(toFile: path, format: .sec1)
        chmod(path, 0o600)
        let phone: [String: Any] = [
            "wallet": "AndroidPay", "customer_id": customerID,
            "collectors": [["collector_id": collectorID, "key_version": 1, "key": path]],
            "passes": [
                ["collector_id": collectorID, "type": "loyalty", "object_id": androidLoyaltyID, "value": message],
                ["collector_id": collectorID, "type": "offer", "object_id": androidOfferID, "value": androidOffer],
            ],
        ]
        try JSONSerialization.data(withJSONObject: phone).write(to: folder.appendingPathComponent("android.json"))
    }

    /// The `[smarttap]` table for the rig's collector key (`key_version` as given: the phone trusts 1).
    static func smartTap(keyVersion: Int = 1) -> String {
        "[smarttap]\nenabled = true\ncollector_id = \(collectorID)\nkey_version = \(keyVersion)\nkey = \"{rig}/collector.pem\"\n"
    }

    /// The `smarttap` member of a `read.result` (or of a `vas.read` result).
    static func smartTap(_ result: [String: Any]) throws -> [String: Any] {
        try #require(result["smarttap"] as? [String: Any], "read.result has no smarttap: \(result)")
    }

    /// Taps the phone as `tap-for 1200` does (it stays 1.2 s, then leaves); returns the tap's
    /// `read.result` once the phone has left again.
    /// `card` 2 is the phone on the second reader.
    @discardableResult
    func tap(card: Int = 1) throws -> [String: Any] {
        try rig.cardCommand("tap-for 1200", card: card)
        let result = try ledger.next("read.result")
        try ledger.next("card.removed")
        return result
    }

    /// A tap as a customer makes it: the phone enters the field, stays until the tap's
    /// `read.result`, and leaves. Returns that `read.result`.
    ///
    /// With `leavingAfter`, the phone leaves as soon as it has received a command starting with
    /// those hex digits, without waiting for the `read.result`: for an exchange that never ends
    /// while the phone is there.
    @discardableResult
    func tapUntilRead(leavingAfter prefix: String? = nil) throws -> [String: Any] {
        try rig.cardCommand("tap")
        if let prefix {
            try rig.waitFor("the phone to receive \(prefix)…") {
                ((try? rig.cardCommand("apdus")["apdus"] as? [String]) ?? []).contains { $0.hasPrefix(prefix) }
            }
            try rig.cardCommand("remove")
        }
        let result = try ledger.next("read.result", timeout: 30)
        if prefix == nil { try rig.cardCommand("remove") }
        try ledger.next("card.removed")
        return result
    }

    /// The VAS entries of a `read.result` (or of a `vas.read` result).
    static func entries(_ result: [String: Any]) throws -> [[String: Any]] {
        let vas = try #require(result["vas"] as? [String: Any], "read.result has no vas: \(result)")
        return try #require(vas["entries"] as? [[String: Any]])
    }

    /// The entry of `passType` in a `read.result` (or a `vas.read` result), if there is one.
    static func entry(_ passType: String = coffee, in result: [String: Any]) -> [String: Any]? {
        ((result["vas"] as? [String: Any])?["entries"] as? [[String: Any]])?.first { $0["pass_type_id"] as? String == passType }
    }

    func stop() {
        report.flush()
        rig.stop()
    }
}
