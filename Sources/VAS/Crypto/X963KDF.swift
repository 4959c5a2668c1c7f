import Crypto

/// The ANSI X9.63 key derivation function with SHA-256 (SEC 1 v2 §3.6.1), as VAS uses it
/// (vas-protocol.md §5.2 step 4).
///
/// `K_i = SHA-256(Z ‖ counter_i ‖ SharedInfo)` with a 32-bit big-endian counter from 1, placed
/// **after** Z (NIST SP 800-56A's `counter ‖ Z` order fails on the published VAS vectors). VAS
/// needs one block: 32 bytes for AES-256.
public enum X963KDF {
    /// The most output one call produces (255 blocks); larger requests are a programming error.
    public static let maximumOutputByteCount = 255 * SHA256.byteCount

    /// Derives `outputByteCount` bytes (0...8160) from the shared secret `z` and `sharedInfo`.
    public static func sha256(sharedSecret z: [UInt8], sharedInfo: [UInt8], outputByteCount: Int = 32) -> [UInt8] {
        precondition(
            (0...maximumOutputByteCount).contains(outputByteCount),
            "X9.63 output of \(outputByteCount) bytes is outside 0...\(maximumOutputByteCount)"
        )
        var output: [UInt8] = []
        output.reserveCapacity(outputByteCount + SHA256.byteCount)
        var counter: UInt32 = 1
        while output.count < outputByteCount {
            var hasher = SHA256()
            hasher.update(data: z)
            hasher.update(data: [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)])
            hasher.update(data: sharedInfo)
            output += hasher.finalize()
            counter += 1
        }
        return Array(output.prefix(outputByteCount))
    }
}
