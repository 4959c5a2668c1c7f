/// Why reading a tag's NDEF message stopped: the tag has none or breaks its platform's rules (a
/// `problem` of `read.result`'s `ndef`), or the exchange itself failed.
enum NDEFTagFailure: Error {
    /// No message, or a broken capability container or TLV: the sentence for `ndef.problem`. It
    /// quotes numbers (lengths, offsets, status words), never the tag's content.
    case problem(String)
    /// The reader or the card failed (pulled, timed out, over the tap's budget).
    case transport(CardTransportError)
}
