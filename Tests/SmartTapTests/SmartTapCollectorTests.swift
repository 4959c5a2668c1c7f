import Crypto
import Foundation
import Testing
import VAS
import Wallets

@testable import SmartTap

@Suite struct SmartTapCollectorTests {
    static let scalar = [UInt8](repeating: 0x22, count: 32)

    static func withKeyFile(mode: mode_t, _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("smarttap-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("collector.pem").path
        let pem = try P256.Signing.PrivateKey(rawRepresentation: scalar).pemRepresentation
        try pem.write(toFile: path, atomically: false, encoding: .utf8)
        chmod(path, mode)
        try body(path)
    }

    @Test func theKeyNeverShowsInDescriptions() throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Self.scalar)
        let collector = SmartTapCollector(collectorID: 20_180_608, keyVersion: 3, key: key)
        let texts = [collector.description, String(reflecting: collector), "\(collector)", String(describing: Mirror(reflecting: collector).children.map(\.value))]
        let scalarHex = Self.scalar.map { String(format: "%02x", $0) }.joined()
        for text in texts {
            #expect(!text.lowercased().contains(scalarHex))
            #expect(!text.contains(key.pemRepresentation))
        }
        #expect(collector.description == "SmartTapCollector(id: 20180608, key version: 3, <redacted>)")
    }

    @Test func loadsA0600KeyAndGivesItsPublicPEM() throws {
        try Self.withKeyFile(mode: 0o600) { path in
            let collector = try SmartTapCollector.load(path: path, collectorID: 7, keyVersion: 2)
            #expect(collector.collectorID == 7)
            #expect(collector.keyVersion == 2)
            #expect(collector.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----"))
            #expect(collector.publicKeyPEM == (try P256.Signing.PrivateKey(rawRepresentation: Self.scalar)).publicKey.pemRepresentation)
        }
    }

    @Test func refusesAWorldReadableKey() throws {
        try Self.withKeyFile(mode: 0o644) { path in
            #expect(throws: MerchantKeyError.self) { try SmartTapCollector.load(path: path, collectorID: 7, keyVersion: 2) }
            do {
                _ = try SmartTapCollector.load(path: path, collectorID: 7, keyVersion: 2)
            } catch let error as MerchantKeyError {
                #expect(error.code == .insecurePermissions)
                #expect(error.description.contains(path))
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
    }

    @Test func refusesAnInvalidScalar() {
        #expect(throws: MerchantKeyError.self) {
            try SmartTapCollector(collectorID: 1, keyVersion: 1, keyFileContents: Array(String(repeating: "ff", count: 32).utf8))
        }
    }
}
