/// What a subscriber may see of the events it receives, by the roles of its connection.
///
/// Every view gets every event; they differ only in what an event carries. The server encodes an
/// event once per view in use (``PublishedEvent/line(for:encode:)``), so there are at most as
/// many encodings of an event as there are cases here.
public enum EventView: Sendable, Hashable, CaseIterable {
    /// Everything, decrypted passes included: a connection with the `read` role.
    case full
    /// Every event, with each VAS entry's payload left out and `withheld: "access"`
    /// (``VASEntry/withholding(_:)``), and a tag's NDEF records and hex too
    /// (``NDEFReadResult/withholding(_:)``): a connection without the `read` role.
    case passesWithheld
}
