// VAS decryption throughput with our `VAS` module; the OpenSSL counterpart is
// scripts/bench/vas_openssl.c and scripts/bench/vas runs both.
//
//   vas-bench ITERATIONS SCALAR_HEX PASS_TYPE_ID CRYPTOGRAM_HEX PLAINTEXT_HEX CRYPTOGRAMS_FILE
//
// Setup once (what depends only on the merchant key and pass: the key, its id, the SharedInfo
// strings). Then, untimed, one decryption of CRYPTOGRAM_HEX (the published vector) which must give
// PLAINTEXT_HEX. Then, timed, ITERATIONS times `VASDecryptor.decrypt` (key id lookup, point
// decompression, ECDH, X9.63 KDF, AES-256-GCM open, plaintext split) cycling through the
// cryptograms of CRYPTOGRAMS_FILE (one `CRYPTOGRAM_HEX PLAINTEXT_HEX` a line, each from its own
// phone key), checking each plaintext. Nothing about the phone's key is cached between iterations,
// and distinct phone keys would show it if it were. Exits 1 unless every decryption succeeds with
// variant A and gives its expected plaintext; prints one JSON line.
import Foundation
import ISO7816
import VAS

/// A cryptogram and the payload it must decrypt to (split once, so the timed loop compares
/// timestamp and message without building a plaintext).
struct Sample {
    let cryptogram: [UInt8]
    let expected: VASPayload

    init(cryptogram: [UInt8], plaintext: [UInt8]) throws {
        guard let expected = VASPayload(plaintext: plaintext) else {
            throw BenchError("a plaintext shorter than its 4-byte timestamp")
        }
        self.cryptogram = cryptogram
        self.expected = expected
    }
}

/// The command line, parsed, with the cryptograms file read.
struct Arguments {
    let iterations: Int
    let scalar: [UInt8]
    let passTypeIdentifier: PassTypeIdentifier
    let vector: Sample
    let samples: [Sample]

    init(_ arguments: [String]) throws {
        guard arguments.count == 7, let iterations = Int(arguments[1]), iterations > 0 else {
            throw BenchError(
                "usage: vas-bench ITERATIONS SCALAR_HEX PASS_TYPE_ID CRYPTOGRAM_HEX PLAINTEXT_HEX CRYPTOGRAMS_FILE"
            )
        }
        self.iterations = iterations
        scalar = try [UInt8](hex: arguments[2])
        passTypeIdentifier = try PassTypeIdentifier(arguments[3])
        vector = try Sample(cryptogram: try [UInt8](hex: arguments[4]), plaintext: try [UInt8](hex: arguments[5]))
        let text = try String(contentsOfFile: arguments[6], encoding: .utf8)
        samples = try text.split(whereSeparator: \.isNewline).map { line in
            let fields = line.split(separator: " ")
            guard fields.count == 2 else { throw BenchError("\(arguments[6]): not CRYPTOGRAM_HEX PLAINTEXT_HEX: \(line)") }
            return try Sample(cryptogram: try [UInt8](hex: String(fields[0])), plaintext: try [UInt8](hex: String(fields[1])))
        }
        guard !samples.isEmpty else { throw BenchError("\(arguments[6]): no cryptograms") }
    }
}

/// A failed check or bad argument, printed as `vas-bench: …`.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Decrypts once and checks the outcome against the expected plaintext.
func decryptChecked(_ decryptor: VASDecryptor, _ sample: Sample) throws {
    let result = decryptor.decrypt(sample.cryptogram)
    guard result.status == .success, result.variant == .a, let payload = result.payload else {
        throw BenchError("decryption failed: \(result.status) \(result.problem ?? "")")
    }
    guard payload == sample.expected else {
        throw BenchError("plaintext \(payload.plaintext.hexString), expected \(sample.expected.plaintext.hexString)")
    }
}

/// Runs the benchmark and prints
/// `{"impl":"swift","iterations":N,"cryptograms":C,"seconds":S,"per_second":R}`.
func run() throws {
    let arguments = try Arguments(CommandLine.arguments)
    let decryptor = VASDecryptor(
        passTypeIdentifier: arguments.passTypeIdentifier, keys: [try MerchantKey(scalar: arguments.scalar)]
    )
    do {
        try decryptChecked(decryptor, arguments.vector)
    } catch {
        throw BenchError("the published vector: \(error)")
    }
    let samples = arguments.samples
    let clock = ContinuousClock()
    let start = clock.now
    var index = 0
    for _ in 0..<arguments.iterations {
        try decryptChecked(decryptor, samples[index])
        index += 1
        if index == samples.count { index = 0 }
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    print(
        #"{"impl":"swift","iterations":\#(arguments.iterations),"cryptograms":\#(samples.count),"seconds":\#(seconds),"per_second":\#(Double(arguments.iterations) / seconds)}"#
    )
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("vas-bench: \(error)\n".utf8))
    exit(1)
}
