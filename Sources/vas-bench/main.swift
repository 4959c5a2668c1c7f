// VAS decryption throughput with our `VAS` module; the OpenSSL counterpart is
// scripts/bench/vas_openssl.c and scripts/bench/vas runs both.
//
//   vas-bench ITERATIONS SCALAR_HEX PASS_TYPE_ID CRYPTOGRAM_HEX PLAINTEXT_HEX
//
// Setup once (what depends only on the merchant key and pass: the key, its id, the SharedInfo
// strings), then ITERATIONS times `VASDecryptor.decrypt` on the same cryptogram: key id lookup,
// point decompression, ECDH, X9.63 KDF, AES-256-GCM open, plaintext split. Nothing about the
// phone's key is cached between iterations. Exits 1 unless every decryption succeeds with
// variant A and the first one's plaintext is PLAINTEXT_HEX; prints one JSON line.
import Foundation
import ISO7816
import VAS

/// The command line, parsed.
struct Arguments {
    let iterations: Int
    let scalar: [UInt8]
    let passTypeIdentifier: PassTypeIdentifier
    let cryptogram: [UInt8]
    let plaintext: [UInt8]

    init(_ arguments: [String]) throws {
        guard arguments.count == 6, let iterations = Int(arguments[1]), iterations > 0 else {
            throw BenchError("usage: vas-bench ITERATIONS SCALAR_HEX PASS_TYPE_ID CRYPTOGRAM_HEX PLAINTEXT_HEX")
        }
        self.iterations = iterations
        scalar = try [UInt8](hex: arguments[2])
        passTypeIdentifier = try PassTypeIdentifier(arguments[3])
        cryptogram = try [UInt8](hex: arguments[4])
        plaintext = try [UInt8](hex: arguments[5])
    }
}

/// A failed check or bad argument, printed as `vas-bench: …`.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Decrypts once and checks the outcome; returns the plaintext.
func decryptChecked(_ decryptor: VASDecryptor, _ cryptogram: [UInt8]) throws -> [UInt8] {
    let result = decryptor.decrypt(cryptogram)
    guard result.status == .success, result.variant == .a, let payload = result.payload else {
        throw BenchError("decryption failed: \(result.status) \(result.problem ?? "")")
    }
    return payload.plaintext
}

/// Runs the benchmark and prints `{"impl":"swift","iterations":N,"seconds":S,"per_second":R}`.
func run() throws {
    let arguments = try Arguments(CommandLine.arguments)
    let decryptor = VASDecryptor(
        passTypeIdentifier: arguments.passTypeIdentifier, keys: [try MerchantKey(scalar: arguments.scalar)]
    )
    let clock = ContinuousClock()
    let start = clock.now
    let first = try decryptChecked(decryptor, arguments.cryptogram)
    guard first == arguments.plaintext else {
        throw BenchError("plaintext \(first.hexString), expected \(arguments.plaintext.hexString)")
    }
    for _ in 1..<arguments.iterations {
        _ = try decryptChecked(decryptor, arguments.cryptogram)
    }
    let elapsed = start.duration(to: clock.now)
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    print(#"{"impl":"swift","iterations":\#(arguments.iterations),"seconds":\#(seconds),"per_second":\#(Double(arguments.iterations) / seconds)}"#)
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("vas-bench: \(error)\n".utf8))
    exit(1)
}
