@preconcurrency import Crypto
import ISO7816
import SmartTap

/// The Smart Tap fuzz target: the phone's answers to a Smart Tap read.
///
/// The first byte picks the variant:
/// - `00`: a whole read by ``SmartTapReader`` (fixed collector key, fixed "random"): a chunk with
///   the OSE.VAS.01 answer's data, then one chunk per command with the phone's answer (data and
///   status word). Bit 7 and 6 of the first byte pick the mode.
/// - `01`: one GET DATA answer, decrypted with session keys derived from fixed inputs (the seeds
///   are sealed for them by `Fuzz/make_seeds.py` with Python's `cryptography`).
///
/// Checks: nothing traps or throws but the transport's own error; at most 3 + the GET MORE DATA
/// limit + 1 commands are sent; success has objects and no problem, every other status has a
/// problem; a code only with `refused`; no more objects than the limit.
enum SmartTapFuzzing {
    /// A constant collector key (not a secret): SHA-256 of a fixed phrase.
    static let collector = SmartTapCollector(
        collectorID: 20_180_608, keyVersion: 1,
        key: try! P256.Signing.PrivateKey(rawRepresentation: Array(SHA256.hash(data: Array("PassTap fuzz collector key".utf8)))))
    static let limits = SmartTapLimits.standard

    /// Variant `01`'s fixed key-derivation inputs and session id (mirrored in make_seeds.py).
    static let sessionID: [UInt8] = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
    static let sharedSecret = Array(SHA256.hash(data: Array("PassTap fuzz smart tap secret".utf8)))
    static let deviceKey: [UInt8] = [0x02] + [UInt8](repeating: 0x5A, count: 32)
    static let info = Array("PassTap fuzz smart tap info".utf8)

    struct OutOfAnswers: Error {}

    static func run(_ bytes: [UInt8]) throws(FuzzFinding) {
        var input = FuzzInput(bytes)
        let variant = input.byte()
        let outcome: SmartTapOutcome
        if variant & 0x3F == 0x01 {
            outcome = SmartTapReader.outcome(
                getData: input.rest(), sessionID: sessionID, sharedSecret: sharedSecret, deviceKey: deviceKey, info: info, limits: limits)
        } else {
            let mode: SmartTapMode = [.passOnly, .passOverPayment, .passAndPayment, .passOnly][Int(variant >> 6)]
            let ose = input.chunk()
            var commands = 0
            let reader = SmartTapReader(collector: collector, limits: limits, random: { count in [UInt8](repeating: 0x42, count: count) })
            do {
                outcome = try reader.run(oseAnswer: ose, mode: mode) { (_: CommandAPDU) throws(OutOfAnswers) -> ResponseAPDU in
                    commands += 1
                    let answer = input.chunk()
                    guard answer.count >= 2 else { throw OutOfAnswers() }
                    return ResponseAPDU(data: Array(answer.dropLast(2)), statusWord: StatusWord(sw1: answer[answer.count - 2], sw2: answer[answer.count - 1]))
                }
            } catch {
                return
            }
            let most = 4 + limits.maxMoreDataRounds
            try require(commands <= most, "\(commands) commands sent, more than \(most)")
        }
        try check(outcome)
    }

    static func check(_ outcome: SmartTapOutcome) throws(FuzzFinding) {
        if outcome.status == .success {
            try require(!outcome.objects.isEmpty && outcome.problem == nil, "success without a pass, or with a problem: \(outcome)")
        } else {
            try require(outcome.problem != nil, "\(outcome.status) without a problem")
        }
        try require((outcome.code != nil) == (outcome.status == .refused && outcome.sw != nil), "a code without refused: \(outcome)")
        try require(outcome.objects.count <= limits.maxObjects, "\(outcome.objects.count) objects, over the limit")
    }
}
