import ISO7816

/// The bytes of a Type 2 tag's memory, read on demand through ``TagMemory``: a byte's page is
/// read the first time a byte of it is asked for, and every page a read returned (4 bytes, or 16
/// from readers that pass on the tag's whole READ answer) is kept, so no page is read twice and
/// no page past the last one needed is read.
struct Type2PageReader {
    /// Page addresses are one byte: 256 pages of 4 bytes are all a READ (`30 <page>`) reaches.
    static let addressableBytes = 256 * 4

    let memory: any TagMemory
    let budget: SessionBudget
    /// The pages read so far, by page number.
    private(set) var pages: [Int: [UInt8]] = [:]
    /// How many reads were sent.
    private(set) var reads = 0

    init(memory: any TagMemory, budget: SessionBudget) {
        self.memory = memory
        self.budget = budget
    }

    /// The byte at `address` (page × 4 + offset), reading its page if it was not read yet.
    mutating func byte(at address: Int) throws(NDEFTagFailure) -> UInt8 {
        guard address >= 0, address < Self.addressableBytes else {
            throw .problem("the tag's data goes past byte \(Self.addressableBytes - 1), the last a one-byte page address reaches")
        }
        let page = address / 4
        if pages[page] == nil { try read(page: page) }
        return pages[page]![address % 4]
    }

    /// The 4 bytes of `page`.
    mutating func page(_ page: Int) throws(NDEFTagFailure) -> [UInt8] {
        _ = try byte(at: page * 4)
        return pages[page]!
    }

    /// Reads from `page` on, keeping each whole page returned (4, 8, 12 or 16 bytes).
    private mutating func read(page: Int) throws(NDEFTagFailure) {
        let answer: [UInt8]
        do {
            try budget.check()
            answer = try memory.read(page: UInt8(page))
        } catch {
            throw .transport(error)
        }
        reads += 1
        guard answer.count >= 4, answer.count <= 16, answer.count % 4 == 0 else {
            throw .problem("reading page \(page) returned \(answer.count) bytes; a Type 2 read returns 4 or 16")
        }
        for index in 0..<(answer.count / 4) where page + index < Self.addressableBytes / 4 {
            // A 16-byte read near the end wraps to page 0 on the tag: those bytes are not kept.
            pages[page + index] = Array(answer[(index * 4)..<(index * 4 + 4)])
        }
    }
}
