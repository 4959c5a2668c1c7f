/// Caps on what one phone may make a Smart Tap session do, so a hostile answer ends in a status,
/// never in an unbounded allocation or loop.
public struct SmartTapLimits: Sendable, Hashable {
    /// Most GET MORE DATA commands after one GET DATA (the phone asks for each with `9100`).
    public var maxMoreDataRounds: Int
    /// Most bytes of GET DATA answer, all GET MORE DATA parts added up.
    public var maxResponseBytes: Int
    /// Most bytes a compressed record bundle may inflate to.
    public var maxInflatedBytes: Int
    /// Most NDEF records in any one (nested) Smart Tap message.
    public var maxRecords: Int
    /// Most service objects reported from one tap.
    public var maxObjects: Int

    /// Limits with these values.
    public init(maxMoreDataRounds: Int = 16, maxResponseBytes: Int = 32_768, maxInflatedBytes: Int = 65_536, maxRecords: Int = 64, maxObjects: Int = 16) {
        self.maxMoreDataRounds = maxMoreDataRounds
        self.maxResponseBytes = maxResponseBytes
        self.maxInflatedBytes = maxInflatedBytes
        self.maxRecords = maxRecords
        self.maxObjects = maxObjects
    }

    /// The limits passtapd uses: a real pass bundle is a few hundred bytes.
    public static let standard = SmartTapLimits()
}
