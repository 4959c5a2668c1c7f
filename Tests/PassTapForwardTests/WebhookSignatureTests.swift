// Vectors not made by us: the Standard Webhooks libraries' own signing tests, from
// github.com/standard-webhooks/standard-webhooks at commit b2fa7b8719fb75d326b591077f5d1b385cfcdfae
// (fetched 2026-11-26), licence MIT (`libraries/LICENSE`, "Copyright (c) 2023 Svix"; the spec
// itself is Apache-2.0, `LICENSE`). Copied values only, no code:
//
// 1. `libraries/go/webhook_test.go`, `TestWebhookSign` (the same vector is in
//    `libraries/javascript/src/webhook.test.ts` "sign function works",
//    `libraries/python/tests/test_webhooks.py` `test_sign_function`,
//    `libraries/csharp/StandardWebhooks.Tests/WebhookTest.cs`, `libraries/php/tests/WebhookTest.php`,
//    `libraries/ruby/spec/webhook_spec.rb`, `libraries/java/.../TestScenario.java`):
//    secret `whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw`, id `msg_p5jXN8AQM9LWM0D4loKWxJek`,
//    timestamp 1614265330, payload `{"test": 2432232314}`,
//    signature `v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=`.
// 2. `libraries/rust/src/lib.rs`, `tests::test_sign`: secret
//    `whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD`, id `msg_27UH4WbU6Z5A5EzD8u03UvzRbpk`, timestamp
//    1649367553, payload `{"email":"test@example.com","username":"test_user"}`, signature
//    `v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw=`.
// 3. `libraries/rust/src/lib.rs`, `tests::test_no_verify`: `v1,R3PTzyfHASBKHH98a7yexTwaJ4yNIcGhFQc1yuN+BPU=`
//    is not a signature of vector 2's message (at any timestamp the test could use).
import ForwardSettings
import Foundation
import PassTapCore
import Testing

@testable import PassTapForward

@Suite struct WebhookSignatureTests {
    struct Vector: Sendable, CustomStringConvertible {
        var source: String
        var secret: String
        var id: String
        var timestamp: Int64
        var payload: String
        var signature: String
        var description: String { source }
    }

    static let published = [
        Vector(
            source: "libraries/go/webhook_test.go TestWebhookSign", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330, payload: #"{"test": 2432232314}"#,
            signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="),
        Vector(
            source: "libraries/rust/src/lib.rs test_sign", secret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
            id: "msg_27UH4WbU6Z5A5EzD8u03UvzRbpk", timestamp: 1_649_367_553,
            payload: #"{"email":"test@example.com","username":"test_user"}"#,
            signature: "v1,tZ1I4/hDygAJgO5TYxiSd6Sd0kDW6hPenDe+bTa3Kkw="),
    ]

    @Test(arguments: published) func signsThePublishedVector(_ vector: Vector) throws {
        let secret = try #require(WebhookSecret(text: vector.secret))
        let signature = WebhookSignature(secret: secret, id: vector.id, timestamp: vector.timestamp, body: Array(vector.payload.utf8))
        #expect(signature.header == vector.signature)
    }

    @Test func theRustLibrarysRefusedSignatureIsNotOurs() throws {
        let vector = Self.published[1]
        let secret = try #require(WebhookSecret(text: vector.secret))
        let signature = WebhookSignature(secret: secret, id: vector.id, timestamp: vector.timestamp, body: Array(vector.payload.utf8))
        #expect(signature.header != "v1,R3PTzyfHASBKHH98a7yexTwaJ4yNIcGhFQc1yuN+BPU=")
    }

    @Test func everyPartOfTheMessageChangesTheSignature() throws {
        let vector = Self.published[0]
        let secret = try #require(WebhookSecret(text: vector.secret))
        let body = Array(vector.payload.utf8)
        let other = try #require(WebhookSecret(text: Self.published[1].secret))
        let variants = [
            WebhookSignature(secret: secret, id: vector.id + "x", timestamp: vector.timestamp, body: body),
            WebhookSignature(secret: secret, id: vector.id, timestamp: vector.timestamp + 1, body: body),
            WebhookSignature(secret: secret, id: vector.id, timestamp: vector.timestamp, body: body + [0x20]),
            WebhookSignature(secret: other, id: vector.id, timestamp: vector.timestamp, body: body),
        ]
        #expect(variants.allSatisfy { $0.header != vector.signature })
    }

    @Test func theTimestampIsWholeUnixSecondsRoundedDown() {
        #expect(WebhookSignature.unixSeconds(Date(timeIntervalSince1970: 1_614_265_330.999)) == 1_614_265_330)
        #expect(WebhookSignature.unixSeconds(Date(timeIntervalSince1970: 1_614_265_330)) == 1_614_265_330)
    }
}
