#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Wiping key material we hold once it is no longer needed: a key file's bytes, a PEM block's
/// Base64 text and DER, a private scalar.
///
/// Only storage we own and that nothing else shares is reached: an array's storage is shared by
/// its copies until one is written to, and writing to a shared one would copy it first and wipe
/// the copy. The key-loading code therefore keeps one array per secret, never copies it, and
/// zeroes it before it goes out of scope. What swift-crypto's `P256.KeyAgreement.PrivateKey`
/// keeps (BoringSSL's own copy of the scalar) lives as long as the `MerchantKey` (VAS) or `SmartTapCollector` and is freed,
/// not zeroed by us; we cannot reach it.
package enum SecretBytes {
    /// Overwrites every byte of `bytes` with zero, in place, with `explicit_bzero` (which the
    /// compiler may not drop as a dead store). `bytes` must not share its storage with another
    /// array (see above); its count is unchanged.
    package static func zero(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return }
            #if canImport(Darwin)
            memset_s(base, buffer.count, 0, buffer.count)
            #else
            explicit_bzero(base, buffer.count)
            #endif
        }
    }
}
