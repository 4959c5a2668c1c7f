/// The fuzz targets: every parser that sees bytes from outside (a card, a peer on the socket, the
/// config file), each as one function that runs one input and checks what must hold for it.
///
/// A target never traps on its own: what is wrong is thrown as a ``FuzzFinding``. The libFuzzer
/// entry points in `Fuzz/` turn a finding into a crash (so libFuzzer saves the input), and
/// `Tests/FuzzRegressionTests` run every saved input again and expect no finding.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `BERTLVParser`: within its limits, and what it parses re-encodes to the same tree.
    case tlv
    /// The SELECT `OSE.VAS.01` answer, through the session engine (the rest of the phone correct).
    case vasSelect = "vas-select"
    /// The GET VAS DATA answer and the decryption with a fixed merchant key, through the session engine.
    case vasData = "vas-data"
    /// A selected application's FCI (or the PPSE directory), its redaction, through the session engine.
    case fci
    /// JSON-RPC lines through the socket's dispatcher (a fake backend, injected clocks).
    case rpc
    /// The TOML config loader.
    case config
    /// A Google Smart Tap read: the phone's answers through `SmartTapReader`, or one GET DATA
    /// answer decrypted with a fixed key.
    case smarttap

    /// Runs one input.
    public func run(_ input: [UInt8]) throws(FuzzFinding) {
        switch self {
        case .tlv: try TLVFuzzing.run(input)
        case .vasSelect: try SessionFuzzing.runVASSelect(input)
        case .vasData: try SessionFuzzing.runVASData(input)
        case .fci: try SessionFuzzing.runFCI(input)
        case .rpc: try RPCFuzzing.shared.run(input)
        case .config: try ConfigFuzzing.shared.run(input)
        case .smarttap: try SmartTapFuzzing.run(input)
        }
    }
}

/// Something that must hold did not: the input is a bug (or the check is).
public struct FuzzFinding: Error, CustomStringConvertible, Sendable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Throws a finding unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(FuzzFinding) {
    if !condition { throw FuzzFinding(message()) }
}

/// Reads a fuzz input as a few small fields: a byte that picks a variant, then chunks.
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// The next byte, 0 when there is none.
    mutating func byte() -> UInt8 {
        bytes.popFirst() ?? 0
    }

    /// A chunk: a length byte (0xFF means a 2-byte big-endian length follows), then that many bytes
    /// (fewer when the input ends first).
    mutating func chunk() -> [UInt8] {
        var length = Int(byte())
        if length == 0xFF { length = Int(byte()) << 8 | Int(byte()) }
        let taken = bytes.prefix(length)
        bytes = bytes.dropFirst(length)
        return Array(taken)
    }

    /// Everything left.
    mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}
