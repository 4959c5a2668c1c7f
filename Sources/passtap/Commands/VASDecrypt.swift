import ArgumentParser
import ISO7816
import PassTapCore
import VAS

/// `passtap vas-decrypt --pass-type-id ID --key PATH HEX`: decrypt a captured Apple VAS
/// cryptogram offline, with the same code passtapd uses (``VASDecryptor``).
///
/// HEX is either the `9F27` value itself or a whole GET VAS DATA answer
/// (`70 L 9F2A L .. 9F27 L ..`, with or without the trailing status word), from which `9F27` is
/// taken with the BER-TLV parser. Input starting with `70` that does not parse as such an answer is
/// taken as a bare cryptogram (a key id may start with `70`).
struct VASDecrypt: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vas-decrypt",
        abstract: "Decrypt a captured Apple VAS cryptogram offline with merchant key files.",
        discussion: """
            HEX is the 9F27 value (spaces and lower case allowed), or a whole GET VAS DATA answer \
            starting with 70, optionally ending in 9000. Each --key is loaded with passtapd's \
            checks (see `passtap key-info`); only keys whose id matches the cryptogram's first 4 \
            bytes are tried unless --no-key-id-check. Prints the status, key id, variant (A or B), \
            timestamp (RFC 3339 UTC and the raw seconds since 2001-01-01 UTC), message and message \
            hex. Exit codes: 0 decrypted; 64 usage (bad pass type id or hex); 65 the input does not \
            decrypt (no_matching_key, decrypt_failed, malformed_response, or an answer without a \
            cryptogram) or a key file is not a P-256 key; 66 a key file is missing or unreadable; \
            77 a key file's permissions are too open.
            """)

    @Option(name: .customLong("pass-type-id"), help: ArgumentHelp("The pass's passTypeIdentifier (it is bound into the encryption).", valueName: "id"))
    var passTypeID: String

    @Option(name: .customLong("key"), help: ArgumentHelp("A merchant key file (repeat for several, e.g. during rotation).", valueName: "path"))
    var keyPaths: [String] = []

    @Flag(name: .customLong("no-key-id-check"), help: "Try every key, whatever key id the cryptogram names.")
    var noKeyIDCheck = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    @Argument(help: "The cryptogram or GET VAS DATA answer in hex (may be split over several arguments).")
    var hex: [String]

    func validate() throws {
        _ = try passType()
        _ = try input()
        guard !keyPaths.isEmpty else { throw ValidationError("give at least one --key") }
    }

    func run() throws {
        let pass = try passType()
        let keys = try keyPaths.map { path throws(ExitCode) in try KeyTools.loadKey(path) }
        let result: Decrypted
        switch Self.cryptogram(in: try input()) {
        case .success(let bytes):
            let decryption = VASDecryptor(passTypeIdentifier: pass, keys: keys, checksKeyID: !noKeyIDCheck).decrypt(bytes)
            result = Decrypted(pass: pass, keys: keys, decryption)
        case .failure(let answer):
            result = Decrypted(pass: pass, keys: keys, status: answer.status, problem: answer.problem)
        }
        if json {
            try KeyTools.json(result)
        } else {
            result.lines.forEach { print($0) }
        }
        guard result.status == VASReadStatus.success.rawValue else {
            throw KeyTools.exit("\(result.status): \(result.problem ?? "no cryptogram")", code: KeyTools.dataError)
        }
    }

    private func passType() throws(ValidationError) -> PassTypeIdentifier {
        do {
            return try PassTypeIdentifier(passTypeID)
        } catch {
            throw ValidationError("--pass-type-id: \(error)")
        }
    }

    private func input() throws(ValidationError) -> [UInt8] {
        let text = hex.joined().filter { !$0.isWhitespace }
        guard !text.isEmpty else { throw ValidationError("no hex given") }
        do {
            return try [UInt8](hex: text)
        } catch {
            throw ValidationError("not hex: \(error)")
        }
    }

    /// A GET VAS DATA answer that holds no usable cryptogram: its status and why.
    struct NoCryptogram: Error {
        let status: VASReadStatus
        let problem: String
    }

    /// The `9F27` bytes in `bytes`: all of them, or those inside a GET VAS DATA answer.
    static func cryptogram(in bytes: [UInt8]) -> Result<[UInt8], NoCryptogram> {
        guard let answer = answer(bytes) else { return .success(bytes) }
        let response = VASDataResponse(answer)
        if let cryptogram = response.cryptogram { return .success(cryptogram.bytes) }
        let problem = response.problem ?? "the answer's status word is \(response.statusWord.hex), so it holds no cryptogram"
        return .failure(NoCryptogram(status: response.status, problem: problem))
    }

    /// `bytes` as a GET VAS DATA answer when they are one `70` template, alone (then `90 00` is
    /// implied) or followed by a status word; `nil` otherwise.
    private static func answer(_ bytes: [UInt8]) -> ResponseAPDU? {
        guard bytes.first == VASTag.dataTemplate.bytes.first else { return nil }
        if isTemplate(bytes) { return ResponseAPDU(data: bytes, statusWord: .success) }
        if bytes.count > 2, isTemplate(Array(bytes.dropLast(2))) { return try? ResponseAPDU(bytes: bytes) }
        return nil
    }

    private static func isTemplate(_ bytes: [UInt8]) -> Bool {
        guard let nodes = try? BERTLVParser.parse(bytes, limits: VASDataResponse.tlvLimits) else { return false }
        return nodes.count == 1 && nodes[0].tag == VASTag.dataTemplate
    }

    /// What is printed, as text or (with `--json`) one object; in text the problem goes to
    /// standard error, with the exit code.
    struct Decrypted: Encodable {
        // Every field is written, `null` when absent, as the socket's VAS entries are.
        let status: String
        let passTypeID: String
        @Nullable var keyID: String?
        let keys: [String]
        @Nullable var variant: String?
        @Nullable var timestamp: String?
        @Nullable var timestampRaw: UInt32?
        @Nullable var message: String?
        @Nullable var messageHex: String?
        @Nullable var problem: String?

        /// The result of decrypting a cryptogram.
        init(pass: PassTypeIdentifier, keys: [MerchantKey], _ decryption: VASDecryption) {
            var problem = decryption.problem
            if decryption.status == .noMatchingKey, let said = problem {
                problem = said + " (given keys: \(keys.map(\.keyID.hex).joined(separator: ", ")); --no-key-id-check tries them anyway)"
            }
            self.init(
                pass: pass, keys: keys, status: decryption.status, problem: problem,
                keyID: decryption.keyID, variant: decryption.variant, payload: decryption.payload)
        }

        /// Any result; a GET VAS DATA answer without a cryptogram has only a status and a problem.
        init(
            pass: PassTypeIdentifier, keys: [MerchantKey], status: VASReadStatus, problem: String?,
            keyID: VASKeyID? = nil, variant: VASCipherVariant? = nil, payload: VASPayload? = nil
        ) {
            self.status = status.rawValue
            passTypeID = pass.value
            self.keyID = keyID?.hex
            self.keys = keys.map(\.keyID.hex)
            self.variant = variant?.rawValue
            timestamp = payload.map { RFC3339.string(from: $0.date) }
            timestampRaw = payload?.timestampRaw
            message = payload?.messageText
            messageHex = payload?.messageHex
            self.problem = problem
        }

        var lines: [String] {
            var lines = ["status: \(status)", "pass type id: \(passTypeID)", "key id: \(keyID ?? "-")"]
            if let variant { lines.append("variant: \(variant)") }
            if let timestamp, let timestampRaw {
                lines.append("timestamp: \(timestamp) (raw \(timestampRaw) s since 2001-01-01 UTC)")
            }
            if let messageHex {
                lines.append("message: " + (message.map(UntrustedText.quoted) ?? "(not UTF-8, see hex)"))
                lines.append("message hex: \(messageHex.isEmpty ? "(empty)" : messageHex)")
            }
            return lines
        }

        enum CodingKeys: String, CodingKey {
            case status, keys, variant, timestamp, message, problem
            case passTypeID = "pass_type_id"
            case keyID = "key_id"
            case timestampRaw = "timestamp_raw"
            case messageHex = "message_hex"
        }
    }
}
