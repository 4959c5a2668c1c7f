/// Why ``APDUTransmitter`` gave up on a command.
public enum APDUTransmitterError<Underlying: Error>: Error {
    /// The raw exchange failed (card removed, reader gone...).
    case exchange(Underlying)
    /// The card asked for more `61xx`/`6Cxx` round trips than ``APDUTransmitter/Limits/maxRoundTrips``.
    case tooManyRoundTrips(limit: Int)
    /// The chained answer grew past ``APDUTransmitter/Limits/maxResponseBytes``.
    case responseTooLong(limit: Int)
    /// The card answered fewer than the two status bytes.
    case malformedResponse(length: Int)
}

/// Sends a command and follows the card's requests, with caps a hostile card cannot get around.
///
/// - `61xx`: the card has `xx` more bytes (`00` = 256): send GET RESPONSE `00 C0 00 00 xx` and
///   append its data; repeat while it answers `61xx` (ISO/IEC 7816-3 §12.2.2 and 7816-4 §5.3.2).
/// - `6Cxx`: wrong Le, `xx` available: resend the same command with Le = `xx` (once).
public struct APDUTransmitter: Sendable {
    /// Caps on one command's exchange.
    public struct Limits: Hashable, Sendable {
        /// Most bytes of response data accepted, all chained parts added up.
        public var maxResponseBytes: Int
        /// Most raw exchanges for one command (the first one included).
        public var maxRoundTrips: Int

        /// Creates limits.
        public init(maxResponseBytes: Int = 65_536, maxRoundTrips: Int = 32) {
            self.maxResponseBytes = maxResponseBytes
            self.maxRoundTrips = maxRoundTrips
        }
    }

    /// The caps in force.
    public var limits: Limits

    /// Creates a transmitter with the given caps.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    /// Sends `command` through `exchange` (one raw round trip each call), following `61xx` and
    /// `6Cxx`, and returns the assembled response.
    public func transmit<E: Error>(
        _ command: CommandAPDU, exchange: ([UInt8]) throws(E) -> [UInt8]
    ) throws(APDUTransmitterError<E>) -> ResponseAPDU {
        var roundTrips = 0
        func send(_ bytes: [UInt8]) throws(APDUTransmitterError<E>) -> ResponseAPDU {
            guard roundTrips < limits.maxRoundTrips else { throw .tooManyRoundTrips(limit: limits.maxRoundTrips) }
            roundTrips += 1
            let answer: [UInt8]
            do {
                answer = try exchange(bytes)
            } catch {
                throw .exchange(error)
            }
            guard answer.count >= 2 else { throw .malformedResponse(length: answer.count) }
            return ResponseAPDU(data: Array(answer.dropLast(2)), statusWord: StatusWord(sw1: answer[answer.count - 2], sw2: answer[answer.count - 1]))
        }

        var response = try send(command.bytes)
        if response.statusWord.sw1 == 0x6C {
            var corrected = command
            corrected.le = response.statusWord.sw2 == 0 ? 256 : Int(response.statusWord.sw2)
            response = try send(corrected.bytes)
        }
        var data = response.data
        guard data.count <= limits.maxResponseBytes else { throw .responseTooLong(limit: limits.maxResponseBytes) }
        while response.statusWord.sw1 == 0x61 {
            response = try send(CommandAPDU.getResponse(length: response.statusWord.sw2).bytes)
            data += response.data
            guard data.count <= limits.maxResponseBytes else { throw .responseTooLong(limit: limits.maxResponseBytes) }
        }
        return ResponseAPDU(data: data, statusWord: response.statusWord)
    }
}
