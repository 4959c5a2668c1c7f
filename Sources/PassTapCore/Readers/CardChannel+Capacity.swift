public import ISO7816

extension CardChannel {
    /// One raw exchange within the channel's ``capacity``: a longer command is refused before it
    /// is sent, a longer answer is the card's fault.
    public func exchange(_ command: [UInt8]) throws(CardTransportError) -> [UInt8] {
        let capacity = self.capacity
        guard command.count <= capacity.maxCommandBytes else {
            throw CardTransportError(
                .commandTooLong, "the command is \(command.count) bytes; this reader carries at most \(capacity.maxCommandBytes)")
        }
        let answer = try transmit(command)
        guard answer.count <= capacity.maxAnswerBytes else {
            throw CardTransportError(
                .responseTooLong, "the card answered \(answer.count) bytes; this reader carries at most \(capacity.maxAnswerBytes)")
        }
        return answer
    }
}

extension APDUTransmitter {
    /// Sends one command over `channel` with chaining (`61xx`, `6Cxx`), each exchange within the
    /// channel's capacity, turning every failure into a ``CardTransportError``.
    public func send(_ command: CommandAPDU, on channel: any CardChannel) throws(CardTransportError) -> ResponseAPDU {
        do {
            return try transmit(command) { (bytes: [UInt8]) throws(CardTransportError) -> [UInt8] in
                try channel.exchange(bytes)
            }
        } catch {
            throw CardTransportError(error)
        }
    }

    /// Sends `command` once over `channel`, without chaining: the answer as the card gave it.
    public func sendRaw(_ command: CommandAPDU, on channel: any CardChannel) throws(CardTransportError) -> ResponseAPDU {
        let answer = try channel.exchange(command.bytes)
        guard let response = try? ResponseAPDU(bytes: answer) else {
            throw CardTransportError(.malformedResponse, "the card answered \(answer.count) byte(s), fewer than the 2 status bytes")
        }
        return response
    }
}
