import PassTapCore

/// The Type 2 tag double of the unit tests: a ``TagMemory`` over a byte image of the tag (page 0
/// first), answering each read with 16 bytes (four pages, wrapping to page 0 past the end, as the
/// tag's READ does) or, with ``pagesPerRead`` 1, with the 4 bytes of the page alone, as some
/// PC/SC readers do. It records every page read.
public final class ScriptedTagMemory: TagMemory {
    /// The tag's memory, page 0 first; a read of a page past it fails as the tag's NAK would.
    public var image: [UInt8]
    /// 4 (16-byte reads) or 1 (4-byte reads).
    public var pagesPerRead: Int
    /// The read (1-based) that throws this transport error instead of answering.
    public var failOnRead: (number: Int, error: CardTransportError)? = nil
    /// Replaces the answer of a read (a reader returning 7 bytes, say); `nil` keeps it.
    public var onRead: ((UInt8, [UInt8]) -> [UInt8])? = nil

    /// Every page asked for, in order.
    public private(set) var reads: [UInt8] = []

    /// A tag holding `image`, read 4 pages at a time unless `pagesPerRead` says otherwise.
    public init(image: [UInt8], pagesPerRead: Int = 4) {
        self.image = image
        self.pagesPerRead = pagesPerRead
    }

    public func read(page: UInt8) throws(CardTransportError) -> [UInt8] {
        reads.append(page)
        if let failure = failOnRead, failure.number == reads.count { throw failure.error }
        let start = Int(page) * 4
        guard start + 4 <= image.count else {
            throw CardTransportError(.transportFailed, "the tag refused the read of page \(page) (NAK)")
        }
        var answer: [UInt8] = []
        for offset in 0..<(pagesPerRead * 4) { answer.append(image[(start + offset) % image.count]) }
        return onRead?(page, answer) ?? answer
    }
}
