public import ForwardSettings
import Crypto
public import Foundation
public import PassTapCore

/// A Standard Webhooks symmetric signature (the spec's "Signature scheme": `v1`):
/// `v1,` + base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{body}")).
///
/// The key is the secret's bytes (the base64 part of `whsec_...`, decoded), the timestamp is in
/// whole Unix seconds, and the body is signed as sent, byte for byte. Checked against the
/// Standard Webhooks libraries' own published vectors (`WebhookSignatureTests`).
public struct WebhookSignature: Sendable, Hashable, CustomStringConvertible {
    /// The `webhook-signature` header's value: `v1,` and the base64 MAC.
    public let header: String

    /// Signs `body` sent as `id` at `timestamp` (Unix seconds) with `secret`.
    public init(secret: WebhookSecret, id: String, timestamp: Int64, body: some Sequence<UInt8>) {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: secret.key))
        mac.update(data: Array("\(id).\(timestamp).".utf8))
        mac.update(data: Array(body))
        header = Self.version + "," + Data(mac.finalize()).base64EncodedString()
    }

    /// The signature scheme's identifier: `v1` (symmetric, HMAC-SHA256).
    public static let version = "v1"

    /// `timestamp` as `webhook-timestamp` carries it: whole seconds since 1970 (rounded down).
    public static func unixSeconds(_ date: Date) -> Int64 {
        Int64(date.timeIntervalSince1970.rounded(.down))
    }

    public var description: String { header }
}
