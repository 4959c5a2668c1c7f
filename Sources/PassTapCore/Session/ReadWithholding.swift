/// Why an entry's pass is left out of what a subscriber sees although it was read: the entry's
/// `withheld` member (`null` when nothing is withheld).
public enum ReadWithholding: String, Sendable, Hashable, Codable, CaseIterable {
    /// The subscriber's connection does not hold the `read` role: every entry of the events it
    /// receives has its payload (`timestamp`, `timestamp_raw`, `message`, `message_hex`,
    /// `variant`) left out, whatever the status.
    case access
}
