import ISO7816

extension VASSelectResponse {
    /// What a SELECT `OSE.VAS.01` answer says about itself, read without the §2.3 checks.
    ///
    /// A session uses it to report the wallet, version and capabilities of an answer that fails
    /// those checks (an `ApplePay` answer with another `9F21`, or a `9F23` of the wrong length),
    /// so the integrator still sees which phone it met.
    public struct Reported: Hashable, Sendable {
        /// The wallet named by tag `50`, when there is one.
        public var wallet: VASWallet?
        /// The `9F21` value as sent, whatever its length.
        public var version: [UInt8]?
        /// The `9F23` value, when it is 4 bytes.
        public var capabilities: VASMobileCapabilities?
    }

    /// Reads tags `50`, `9F21` and `9F23` from the `6F` template, leniently; fields that are
    /// missing, or an answer that is not one `6F` template, give `nil`.
    public static func reported(in data: [UInt8]) -> Reported {
        guard let fci = try? fciTemplate(of: data) else { return Reported() }
        return Reported(
            wallet: fci.first(VASTag.walletLabel).map { VASWallet(label: $0.value) },
            version: fci.first(VASTag.applicationVersion)?.value,
            capabilities: fci.first(VASTag.mobileCapabilities).flatMap { VASMobileCapabilities(bytes: $0.value) })
    }
}
