@preconcurrency import Crypto
public import ISO7816
import NDEF

/// Runs a Smart Tap 2.1 read after the session's SELECT `OSE.VAS.01` found an Android phone
/// (docs/smarttap.md, "The protocol as implemented"):
///
/// 1. the device nonce and ephemeral key from the OSE answer (`C2`, `C3`), or else SELECT
///    `A000000476D0000111` for the nonce;
/// 2. NEGOTIATE SECURE CHANNEL (`90 53`): session, reader nonce, reader ephemeral key, key
///    version, the collector's ECDSA-SHA256 signature over reader nonce | device nonce |
///    collector id | reader key, and the collector id; the phone answers its ephemeral key;
/// 3. GET DATA (`90 50`) with the merchant, the services and the POS capabilities, then GET MORE
///    DATA (`90 C0`) while the phone answers `9100`, within ``SmartTapLimits``;
/// 4. the record bundle: ECDH, HKDF-SHA256, HMAC-SHA256 checked, AES-128-CTR, zlib when flagged;
/// 5. the service objects, customer id and tap id.
///
/// Every failure of the phone's answers ends in an outcome with a status and a `problem`; only
/// the transport's own failures (card gone, reader gone) are thrown, as `exchange` threw them.
public struct SmartTapReader: Sendable {
    /// The Smart Tap 2 AID, `A000000476D0000111`.
    public static let smartTap2AID: [UInt8] = [0xA0, 0x00, 0x00, 0x04, 0x76, 0xD0, 0x00, 0x01, 0x11]
    /// The version this reader speaks: `0001` (Smart Tap 2.1).
    public static let version: [UInt8] = [0x00, 0x01]

    /// Random bytes from the system's generator.
    public static let secureRandom: @Sendable (Int) -> [UInt8] = { count in
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    let collector: SmartTapCollector
    let limits: SmartTapLimits
    let random: @Sendable (Int) -> [UInt8]

    /// A reader for `collector`. `random` makes the session id, the reader nonce and the reader's
    /// ephemeral key; tests pass a fixed one.
    public init(collector: SmartTapCollector, limits: SmartTapLimits = .standard, random: @escaping @Sendable (Int) -> [UInt8] = SmartTapReader.secureRandom) {
        self.collector = collector
        self.limits = limits
        self.random = random
    }

    /// Runs steps 1 to 5 over `exchange`, which sends one command and returns its answer with any
    /// `61xx` chaining already followed. `oseAnswer` is the data of the OSE.VAS.01 answer.
    ///
    /// Transport failures: `exchange`'s own error is rethrown unchanged (the reader is generic
    /// over it, so PassTapCore's `CardTransportError` crosses without SmartTap importing it).
    public func run<Failure: Error>(
        oseAnswer: [UInt8], mode: SmartTapMode, exchange: (CommandAPDU) throws(Failure) -> ResponseAPDU
    ) throws(Failure) -> SmartTapOutcome {
        var state = RunState()
        do {
            return try steps(oseAnswer: oseAnswer, mode: mode, state: &state, exchange: exchange)
        } catch {
            switch error {
            case .transport(let failure):
                throw failure
            case .stopped(let failure):
                let sw = failure.sw ?? state.lastSW
                return SmartTapOutcome(
                    status: failure.status, sw: sw, code: failure.status == .refused ? sw?.sw2 : nil,
                    version: state.version, problem: failure.problem
                )
            }
        }
    }

    /// Why the steps stopped: the transport failed, or the phone's answers ended the session.
    enum Stop<Failure: Error>: Error {
        case transport(Failure)
        case stopped(SmartTapFailure)
    }

    /// What the session learnt so far, for the outcome of a failure.
    struct RunState {
        var lastSW: StatusWord?
        var version: String?
    }

    private func steps<Failure: Error>(
        oseAnswer: [UInt8], mode: SmartTapMode, state: inout RunState, exchange: (CommandAPDU) throws(Failure) -> ResponseAPDU
    ) throws(Stop<Failure>) -> SmartTapOutcome {
        func lift<T>(_ body: () throws(SmartTapFailure) -> T) throws(Stop<Failure>) -> T {
            do { return try body() } catch { throw .stopped(error) }
        }
        // One command; a status word that ends the session (SmartTapStatus.ending) stops it.
        func send(_ command: CommandAPDU, _ what: String) throws(Stop<Failure>) -> ResponseAPDU {
            let response: ResponseAPDU
            do { response = try exchange(command) } catch { throw .transport(error) }
            state.lastSW = response.statusWord
            if let ending = SmartTapStatus.ending(response.statusWord) {
                let meaning = ending == .malformedResponse ? ", not a Smart Tap status word" : ""
                throw .stopped(SmartTapFailure(ending, "the phone answered \(what) with \(response.statusWord.hex)\(meaning)", sw: response.statusWord))
            }
            return response
        }

        // 1. The device nonce (and, from 2.1 phones, the ephemeral key).
        let select: SmartTapSelectAnswer
        do { select = try SmartTapSelectAnswer(oseData: oseAnswer) } catch {
            throw .stopped(SmartTapFailure(.malformedResponse, error.reason))
        }
        guard select.isAndroid else {
            throw .stopped(SmartTapFailure(.malformedResponse, "the OSE.VAS.01 answer does not name AndroidPay (tag 50)"))
        }
        let deviceNonce: [UInt8]
        if select.hasSecureChannelMaterial, let nonce = select.deviceNonce {
            deviceNonce = nonce
            state.version = (select.version ?? Self.version).hexString
        } else {
            let answer = try send(CommandAPDU(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: Self.smartTap2AID, le: 256), "SELECT Smart Tap 2")
            let applet = try lift { () throws(SmartTapFailure) in try SmartTapAppletAnswer(data: answer.data, limits: limits) }
            guard applet.supports21 else {
                throw .stopped(SmartTapFailure(.malformedResponse, "the phone supports Smart Tap versions \(applet.minimumVersion.hexString) to \(applet.maximumVersion.hexString), not 0001 (2.1)"))
            }
            deviceNonce = applet.deviceNonce
            state.version = Self.version.hexString
        }

        // 2. NEGOTIATE SECURE CHANNEL.
        let sessionID = randomBytes(8)
        let readerNonce = randomBytes(32)
        let readerKey = ephemeralKey()
        let readerPublic = Array(readerKey.publicKey.compressedRepresentation)
        let signedData = readerNonce + deviceNonce + collector.collectorIDBytes + readerPublic
        let signature: [UInt8]
        do { signature = Array(try collector.key.signature(for: signedData).derRepresentation) } catch {
            throw .stopped(SmartTapFailure(.malformedResponse, "signing the NEGOTIATE request failed"))
        }
        let negotiate = SmartTapRecords.negotiateRequest(
            session: SmartTapRecords.session(id: sessionID, sequence: 1),
            cryptoParameters: SmartTapRecords.cryptoParameters(
                readerNonce: readerNonce, readerKey: readerPublic, keyVersion: collector.keyVersion, signature: signature,
                collectorID: collector.collectorID)
        )
        let negotiated = try send(CommandAPDU(cla: 0x90, ins: 0x53, p1: 0x00, p2: 0x00, data: negotiate.encoded(), le: 256), "NEGOTIATE SECURE CHANNEL")
        let channel = try lift { () throws(SmartTapFailure) in
            try SmartTapNegotiateResponse(data: negotiated.data, sessionID: sessionID, fallbackKey: select.deviceEphemeralKey, limits: limits)
        }

        // 3. GET DATA, then GET MORE DATA while the phone answers 9100.
        let request = SmartTapRecords.serviceRequest(
            session: SmartTapRecords.session(id: sessionID, sequence: channel.session.sequence &+ 1),
            collectorID: collector.collectorID, mode: mode
        )
        var response = try send(CommandAPDU(cla: 0x90, ins: 0x50, p1: 0x00, p2: 0x00, data: request.encoded(), le: 256), "GET DATA")
        var data = response.data
        var rounds = 0
        while response.statusWord == Self.moreData {
            guard rounds < limits.maxMoreDataRounds else {
                throw .stopped(SmartTapFailure(.malformedResponse, "the phone asked for more than \(limits.maxMoreDataRounds) GET MORE DATA commands", sw: response.statusWord))
            }
            rounds += 1
            response = try send(CommandAPDU(cla: 0x90, ins: 0xC0, p1: 0x00, p2: 0x00, le: 256), "GET MORE DATA")
            data += response.data
            guard data.count <= limits.maxResponseBytes else {
                throw .stopped(SmartTapFailure(.malformedResponse, "the GET DATA answer grew past \(limits.maxResponseBytes) bytes", sw: response.statusWord))
            }
        }
        guard data.count <= limits.maxResponseBytes else {
            throw .stopped(SmartTapFailure(.malformedResponse, "the GET DATA answer is over \(limits.maxResponseBytes) bytes", sw: response.statusWord))
        }
        let noPass = response.statusWord == Self.noPassNoPayment
        if data.isEmpty, noPass {
            throw .stopped(SmartTapFailure(.noPass, "the phone has no pass for collector \(collector.collectorID)", sw: response.statusWord))
        }

        // 4. and 5. The record bundle.
        guard let shared = SmartTapSessionKeys.sharedSecret(readerKey: readerKey, deviceKey: channel.deviceKey) else {
            throw .stopped(SmartTapFailure(.malformedResponse, "the phone's ephemeral key is not a P-256 point", sw: response.statusWord))
        }
        let keys = SmartTapSessionKeys(
            sharedSecret: shared, deviceKey: channel.deviceKey, info: SmartTapSessionKeys.info(signedData: signedData, signature: signature))
        let values = try lift { () throws(SmartTapFailure) in
            try Self.serviceValues(getData: data, sessionID: sessionID, keys: keys, limits: limits)
        }
        let status: SmartTapStatus = values.objects.isEmpty || noPass ? .noPass : .success
        return SmartTapOutcome(
            status: status, sw: response.statusWord, version: state.version,
            problem: status == .noPass ? "the phone sent no pass for collector \(collector.collectorID)" : nil,
            customerID: values.customerID, tapID: values.tapID, objects: values.objects
        )
    }

    /// Steps 4 and 5 on the joined GET DATA answer: the bundle's HMAC, AES-CTR, zlib when
    /// flagged, then the service values.
    static func serviceValues(getData data: [UInt8], sessionID: [UInt8], keys: SmartTapSessionKeys, limits: SmartTapLimits) throws(SmartTapFailure) -> SmartTapServiceValues {
        let bundle = try SmartTapServiceResponse(data: data, sessionID: sessionID, limits: limits).bundle
        var plaintext = try bundle.open(with: keys)
        if bundle.isCompressed { plaintext = try SmartTapInflater.inflate(plaintext, limit: limits.maxInflatedBytes) }
        return try SmartTapServiceValues(decrypted: plaintext, limits: limits)
    }

    /// `9100`: more data, send GET MORE DATA.
    static let moreData = StatusWord(rawValue: 0x9100)
    /// `9102`: no pass, payment not ready.
    static let noPassNoPayment = StatusWord(rawValue: 0x9102)

    private func randomBytes(_ count: Int) -> [UInt8] {
        let bytes = random(count)
        return bytes.count == count ? bytes : Self.secureRandom(count)
    }

    /// The reader's ephemeral key, from `random` (a scalar outside the curve's range is drawn again).
    private func ephemeralKey() -> P256.KeyAgreement.PrivateKey {
        for _ in 0..<4 {
            if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: randomBytes(32)) { return key }
        }
        return P256.KeyAgreement.PrivateKey()
    }
}
