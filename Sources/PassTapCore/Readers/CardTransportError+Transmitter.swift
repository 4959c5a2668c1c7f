import ISO7816

extension CardTransportError {
    /// The transport error for a command the transmitter gave up on.
    init(_ error: APDUTransmitterError<CardTransportError>) {
        switch error {
        case .exchange(let underlying):
            self = underlying
        case .tooManyRoundTrips(let limit):
            self.init(.tooManyRoundTrips, "the card asked for more than \(limit) round trips (61xx/6Cxx) for one command")
        case .responseTooLong(let limit):
            self.init(.responseTooLong, "the card's chained answer exceeded \(limit) bytes")
        case .malformedResponse(let length):
            self.init(.malformedResponse, "the card answered \(length) byte(s), fewer than the 2 status bytes")
        }
    }
}
