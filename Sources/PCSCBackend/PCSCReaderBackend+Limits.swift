internal import CPCSCLite

extension PCSCReaderBackend {
    /// The most readers pcscd serves at once (pcsc-lite's `PCSCLITE_MAX_READERS_CONTEXTS`, 16 in
    /// Debian 12's build), so the most this backend ever drives.
    public static let maximumReaders = Int(PCSCLITE_MAX_READERS_CONTEXTS)
}
