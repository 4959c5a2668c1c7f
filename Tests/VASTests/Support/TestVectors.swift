import Foundation
import ISO7816
import VAS

/// Loads the committed vector files (see Vectors/SOURCES.md) and the published VAS values of
/// vas-protocol.md §8.
enum TestVectors {
    struct MissingResource: Error, CustomStringConvertible {
        let name: String
        var description: String { "test resource Vectors/\(name) is missing from the bundle" }
    }

    static func url(_ name: String) throws -> URL {
        guard let base = Bundle.module.resourceURL else { throw MissingResource(name: name) }
        let url = base.appendingPathComponent("Vectors").appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingResource(name: name) }
        return url
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try data(name))
    }

    /// §8.1: the PassKit demo pass and its public key material.
    static let passKitPassID = "pass.com.passkit.pksamples.nfcdemo"
    static let passKitScalar = "3d1547f23cd78ad052a58860f1219e8fb791ec4dfe33769f5b9bfa627a656ca1"
    static let passKitX = "c0a301bf6f41c9a48b88617415cb6ec81f87b36a19d640c86214d59653dec4d1"
    static let passKitKeyID = "C0B77375"
    static let passKitSPKIBase64 = "MDkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDIgADwKMBv29ByaSLiGF0FctuyB+Hs2oZ1kDIYhTVllPexNE="

    static func passKitKey() throws -> MerchantKey {
        try MerchantKey(scalar: [UInt8](hex: passKitScalar))
    }

    static func passKitPass() throws -> PassTypeIdentifier {
        try PassTypeIdentifier(passKitPassID)
    }
}
