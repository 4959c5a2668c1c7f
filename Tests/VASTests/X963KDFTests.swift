import Foundation
import ISO7816
import Testing
import VAS

/// X9.63 KDF against NIST CAVS `ansx963_2001_sha256.txt` (from swift-crypto's test vectors).
@Suite(.timeLimit(.minutes(1))) struct X963KDFTests {
    struct Vector: CustomTestStringConvertible {
        var z: [UInt8]
        var sharedInfo: [UInt8]
        var keyData: [UInt8]
        var testDescription: String { "Z \(z.count) B, SharedInfo \(sharedInfo.count) B, output \(keyData.count) B" }
    }

    /// Parses the CAVS file's `[SHA-256]` section: `Z = `, `SharedInfo = `, `key_data = ` lines.
    static func vectors() throws -> [Vector] {
        let text = String(decoding: try TestVectors.bytes("ansx963_2001_sha256.txt"), as: UTF8.self)
        var vectors: [Vector] = []
        var inSHA256 = false
        var z: [UInt8] = []
        var sharedInfo: [UInt8] = []
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[SHA-") {
                inSHA256 = line == "[SHA-256]"
                continue
            }
            guard inSHA256 else { continue }
            let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "Z": z = try [UInt8](hex: parts[1])
            case "SharedInfo": sharedInfo = try [UInt8](hex: parts[1])
            case "key_data": vectors.append(Vector(z: z, sharedInfo: sharedInfo, keyData: try [UInt8](hex: parts[1])))
            default: continue
            }
        }
        return vectors
    }

    @Test func theCAVSFileHoldsSHA256Vectors() throws {
        let vectors = try Self.vectors()
        #expect(vectors.count >= 10)
        #expect(vectors.contains { $0.keyData.count > 32 }, "multi-block outputs are covered")
        #expect(vectors.contains { !$0.sharedInfo.isEmpty }, "non-empty SharedInfo is covered")
    }

    @Test(arguments: try vectors())
    func derivationMatchesCAVS(_ vector: Vector) {
        let output = X963KDF.sha256(sharedSecret: vector.z, sharedInfo: vector.sharedInfo, outputByteCount: vector.keyData.count)
        #expect(output == vector.keyData)
    }

    @Test func counterComesAfterTheSecretNotBefore() throws {
        // NIST SP 800-56A order (counter ‖ Z ‖ info) must not be what we compute.
        let z = [UInt8](repeating: 0x11, count: 32)
        let info = Array("info".utf8)
        let output = X963KDF.sha256(sharedSecret: z, sharedInfo: info)
        #expect(output.count == 32)
        #expect(output != X963KDF.sha256(sharedSecret: [0, 0, 0, 1] + z, sharedInfo: info))
        #expect(output == X963KDF.sha256(sharedSecret: z, sharedInfo: info, outputByteCount: 64).prefix(32).map { $0 })
    }
}
