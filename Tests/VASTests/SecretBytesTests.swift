import Testing
import VAS
import Wallets

/// Key bytes we hold are wiped in place once the key is made.
@Suite struct SecretBytesTests {
    @Test(arguments: [1, 32, 4096, 16 * 1024 + 1])
    func zeroingOverwritesEveryByteInPlace(count: Int) {
        var bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 7 + 1) | 0x01 }
        let before = bytes.withUnsafeBufferPointer { $0.baseAddress }
        SecretBytes.zero(&bytes)
        #expect(bytes.count == count)
        #expect(bytes.allSatisfy { $0 == 0 })
        // The same storage: the bytes were wiped where they were, not in a copy.
        #expect(bytes.withUnsafeBufferPointer { $0.baseAddress } == before)
    }

    @Test func zeroingAnEmptyArrayDoesNothing() {
        var bytes: [UInt8] = []
        SecretBytes.zero(&bytes)
        #expect(bytes.isEmpty)
    }
}
