@preconcurrency import Crypto
import Foundation
import NIOCore
import ISO7816
import PassTapCore
import PassTapProtocol
import PassTapTestSupport
import VAS
import VASSettings

/// The card-facing fuzz targets. Each runs the real session engine on one tap of a phone (a
/// `ScriptedCard` with fixed answers by command) whose answer at one step is the fuzzer's, then
/// checks the `read.result` line a subscriber would get:
/// - it is one JSON object on one line of at most `NDJSON.maximumLineBytes`;
/// - it never holds the merchant's private key;
/// - a published FCI holds no card data (``FCIRecord/cardDataTags``) and is at most
///   ``FCIRecord/maximumPublishedBytes``.
enum SessionFuzzing {
    /// The merchant of every session target, with a fixed key: SHA-256 of a fixed phrase, a
    /// constant (not a secret) that looks random, so no input holds it by chance.
    static let passType = "pass.com.example.fuzz"
    static let scalar = Array(SHA256.hash(data: Array("PassTap fuzz merchant key".utf8)))
    static let key = try! MerchantKey(scalar: scalar)
    /// The one-time key the fixed cryptograms are sealed with, so that an input always means the same.
    static let ephemeral = try! P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 0x3C, count: 32))
    /// The pass timestamp (seconds since 2001) and the engine's wall clock at that moment.
    static let timestamp: UInt32 = 800_000_000
    static let now = Date(timeIntervalSince1970: TimeInterval(Int64(timestamp) + VASPayload.appleEpochOffset))
    static let payment = try! AID(hex: "A0000000041010")

    /// `[vas]` on, with the one merchant whose key seals the fuzzed passes.
    static let settings: Configuration.VAS = {
        var settings = Configuration.VAS()
        settings.enabled = true
        settings.merchants = [
            try! VASMerchant(
                passTypeIdentifier: PassTypeIdentifier(passType), url: nil, filter: nil, keys: [key], keyPaths: ["/fuzz/merchant.pem"])
        ]
        return settings
    }()

    static let plan = SessionPlan(aids: [payment, try! AID(hex: "D2760000850101")], ppse: true, vas: settings.plan(), budget: .seconds(2))

    /// A correct SELECT `OSE.VAS.01` answer: ApplePay, version 0100, capabilities `0000003E`.
    static let vasSelectAnswer: [UInt8] = VASPhone().selectAnswer + [0x90, 0x00]

    /// A correct GET VAS DATA answer carrying `cryptogram`.
    static func vasDataAnswer(_ cryptogram: [UInt8]) -> [UInt8] { VASPhone.dataAnswer(cryptogram: cryptogram) }

    /// `message` sealed for the fixed merchant key, as a phone would.
    static func sealed(_ message: [UInt8], variant: VASCipherVariant) -> [UInt8] {
        let payload = VASPayload(timestampRaw: timestamp, message: Array(message.prefix(VASPayload.maximumMessageLength)))
        return try! VASCryptogramSealer.seal(
            payload: payload, merchantPublicKey: key.publicKey, passTypeIdentifier: PassTypeIdentifier(passType), variant: variant,
            ephemeralKey: ephemeral
        ).bytes
    }

    static let correctVASData = vasDataAnswer(sealed(Array("member 0042".utf8), variant: .a))

    /// A phone that answers everything correctly: its pass, then a Mastercard application.
    static func correctPhone() -> Phone {
        let phone = Phone()
        phone.vasSelect = vasSelectAnswer
        phone.vasData = correctVASData
        phone.card.selectAnswers[payment.hex] = BERTLVWriter.encode(tag: 0x6F, value: BERTLVWriter.encode(tag: 0x84, value: payment.bytes)) + [0x90, 0x00]
        return phone
    }

    // MARK: Targets

    /// `vas-select`: the first chunk answers SELECT `OSE.VAS.01`; the rest answer what follows
    /// (GET RESPONSE after `61xx`, the SELECT again after `6Cxx`).
    static func runVASSelect(_ bytes: [UInt8]) throws(FuzzFinding) {
        var input = FuzzInput(bytes)
        let phone = correctPhone()
        phone.vasSelect = input.chunk()
        phone.card.followUps = remainingChunks(&input)
        _ = try run(phone, input: bytes)
        // The answer is parsed by itself as well, and its lenient reading never traps.
        if let select = try? ResponseAPDU(bytes: phone.vasSelect ?? []) {
            _ = try? VASSelectResponse(select)
            _ = VASSelectResponse.reported(in: select.data)
        }
    }

    /// `vas-data`: the first byte picks what the fuzzer controls:
    /// - 0: the GET VAS DATA answer itself (first chunk), and what follows it (the other chunks);
    /// - 1: the message (first chunk, at most 64 bytes) of a pass sealed correctly for the
    ///   fixed key, with variant A or B by the byte's high bit. It must be read back exactly;
    /// - 2: the cryptogram after the right key id (the phone's one-time key X, the ciphertext
    ///   and the tag), in a correct answer.
    static func runVASData(_ bytes: [UInt8]) throws(FuzzFinding) {
        var input = FuzzInput(bytes)
        let mode = input.byte()
        let phone = correctPhone()
        switch (mode & 0x7F) % 3 {
        case 0:
            phone.vasData = input.chunk()
            phone.card.followUps = remainingChunks(&input)
            _ = try run(phone, input: bytes)
            if let response = try? ResponseAPDU(bytes: phone.vasData), let cryptogram = VASDataResponse(response).cryptogram {
                _ = plan.vas?.merchants.first?.decryptor?.decrypt(cryptogram)
            }
        case 1:
            let message = Array(input.chunk().prefix(VASPayload.maximumMessageLength))
            let variant: VASCipherVariant = mode & 0x80 == 0 ? .a : .b
            phone.vasData = vasDataAnswer(sealed(message, variant: variant))
            let outcome = try run(phone, input: bytes)
            let entry = outcome.vas?.entries.first
            try require(entry?.status == .success, "a pass sealed for the key was not read: \(String(describing: entry))")
            try require(entry?.payload?.message == message, "the pass read back \(String(describing: entry?.payload?.message)), not \(message)")
            try require(entry?.payload?.timestampRaw == timestamp, "the pass timestamp read back is not the one sealed")
            try require(entry?.variant == variant, "variant \(variant) read back as \(String(describing: entry?.variant))")
        default:
            let cryptogram = key.keyID.bytes + input.chunk()
            phone.vasData = vasDataAnswer(cryptogram)
            _ = try run(phone, input: bytes)
            _ = plan.vas?.merchants.first?.decryptor?.decrypt(cryptogram)
        }
    }

    /// `fci`: the first byte picks the answer the fuzzer writes (first chunk; the other chunks
    /// answer what follows): 0 the payment application's SELECT, 1 the PPSE directory, 2 the
    /// SELECT of a non-payment application (the phone has no VAS applet and no payment one).
    /// The FCI's redaction is also checked on its own, in both scopes.
    static func runFCI(_ bytes: [UInt8]) throws(FuzzFinding) {
        var input = FuzzInput(bytes)
        let mode = input.byte() % 3
        let answer = input.chunk()
        let phone = correctPhone()
        phone.vasSelect = nil
        switch mode {
        case 0: phone.card.selectAnswers[payment.hex] = answer
        case 1: phone.card.selectAnswers[PaymentDirectory.aid.hex] = answer
        default:
            phone.card.selectAnswers[payment.hex] = nil
            phone.card.selectAnswers["D2760000850101"] = answer
        }
        phone.card.followUps = remainingChunks(&input)
        _ = try run(phone, input: bytes)
        let data = Array(answer.dropLast(2))
        for scope in [FCIRecord.Scope.withoutCardData, .paymentApplication] {
            guard case .success(let record) = FCIRecord.forPublication(data, scope: scope) else { continue }
            try checkPublished(record)
            if scope == .paymentApplication {
                var tags: [TLVTag] = []
                collect((try? BERTLVParser.parse([UInt8](hex: record.hex))) ?? [], into: &tags)
                for tag in tags where !FCIRecord.paymentApplicationTags.contains(tag) {
                    throw FuzzFinding("tag \(tag.hex) published in a payment application's FCI \(record.hex)")
                }
            }
        }
    }

    // MARK: Running and checking

    static func remainingChunks(_ input: inout FuzzInput) -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        while !input.isEmpty, chunks.count < 64 { chunks.append(input.chunk()) }
        return chunks
    }

    /// Runs one tap on `phone` and checks its `read.result` line.
    static func run(_ phone: Phone, input: [UInt8]) throws(FuzzFinding) -> SessionOutcome {
        let clock = phone.clock
        let engine = SessionEngine(clock: DaemonClock(date: { now }, now: { clock.now }))
        let outcome = engine.run(plan, on: phone.card)
        try checkLine(of: outcome, answers: Array(phone.card.answers.joined()), input: input)
        if let fci = outcome.aid.fci {
            // Which scope applied depends on the application; card data is withheld in both.
            try checkPublished(fci)
        }
        return outcome
    }

    static let card = CardInfo(atr: [0x3B, 0x80, 0x80, 0x01, 0x01], uid: [0x08, 0x12, 0x34, 0x56])
    static let scalarHex = [scalar.hexString.lowercased(), scalar.hexString.uppercased()]

    /// `answers`: everything the card sent. The key may appear in the line only where the card
    /// itself sent its bytes (or the input held its hex, as a message to seal).
    static func checkLine(of outcome: SessionOutcome, answers: [UInt8], input: [UInt8]) throws(FuzzFinding) {
        let result = ReadResult(card: card, target: .isoDep, session: outcome)
        let event = Event(seq: 1, time: now, kind: .readResult, reader: .pcsc("Fuzz Reader 00 00"), payload: .readResult(result))
        let line: [UInt8]
        do {
            line = Array(try NDJSON.encodeLine(JSONRPCNotification(method: .event, params: event)).readableBytesView)
        } catch {
            throw FuzzFinding("the read.result does not encode: \(error)")
        }
        try require(line.count <= NDJSON.maximumLineBytes, "a read.result line of \(line.count) bytes")
        try require(line.firstIndex(of: 0x0A) == line.count - 1, "a read.result line with a newline inside")
        let text = String(decoding: line, as: UTF8.self)
        let inputText = String(decoding: input, as: UTF8.self)
        if !answers.hexString.contains(scalar.hexString), !input.hexString.contains(scalar.hexString),
            !scalarHex.contains(where: inputText.contains)
        {
            for secret in scalarHex { try require(!text.contains(secret), "the merchant's private key is in the read.result line") }
        }
        try require(
            (try? JSONSerialization.jsonObject(with: Data(line.dropLast()))) is [String: Any], "the read.result line is not one JSON object")
    }

    /// A published FCI holds no card data, and is at most the published size.
    static func checkPublished(_ record: FCIRecord) throws(FuzzFinding) {
        guard let published = try? [UInt8](hex: record.hex) else { throw FuzzFinding("published FCI hex \(record.hex) is not hex") }
        try require(published.count <= FCIRecord.maximumPublishedBytes, "a published FCI of \(published.count) bytes")
        guard let nodes = try? BERTLVParser.parse(published) else {
            throw FuzzFinding("a published FCI that does not parse: \(record.hex)")
        }
        var tags: [TLVTag] = []
        collect(nodes, into: &tags)
        for tag in tags where FCIRecord.cardDataTags.contains(tag) {
            throw FuzzFinding("card data tag \(tag.hex) published in the FCI \(record.hex)")
        }
    }

    static func collect(_ nodes: [TLVNode], into tags: inout [TLVTag]) {
        for node in nodes {
            tags.append(node.tag)
            if let children = node.children { collect(children, into: &tags) }
        }
    }
}
