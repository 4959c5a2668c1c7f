public import ISO7816

/// What one Smart Tap session came to: the status (``SmartTapStatus``), the phone's last status
/// word, and, on success, the customer, the tap and the passes. PassTapCore turns it into
/// `read.result`'s `smarttap`.
public struct SmartTapOutcome: Sendable, Hashable {
    /// How the session ended.
    public var status: SmartTapStatus
    /// The phone's last status word, when it answered one.
    public var sw: StatusWord?
    /// For ``SmartTapStatus/refused`` (`94xx`): the second byte, the phone's reason.
    public var code: UInt8?
    /// The Smart Tap version negotiated, as hex (`0001` for 2.1), once known.
    public var version: String?
    /// What went wrong, for anything but success; never holds key material.
    public var problem: String?
    /// The customer id (`cid`), hex, when the phone sent one.
    public var customerID: String?
    /// The customer tap id (`cut`), hex, when the phone sent one.
    public var tapID: String?
    /// The passes, in the phone's order.
    public var objects: [SmartTapServiceObject]

    /// An outcome with these fields.
    public init(
        status: SmartTapStatus, sw: StatusWord? = nil, code: UInt8? = nil, version: String? = nil, problem: String? = nil,
        customerID: String? = nil, tapID: String? = nil, objects: [SmartTapServiceObject] = []
    ) {
        self.status = status
        self.sw = sw
        self.code = code
        self.version = version
        self.problem = problem
        self.customerID = customerID
        self.tapID = tapID
        self.objects = objects
    }
}
