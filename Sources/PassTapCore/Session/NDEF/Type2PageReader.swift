import ISO7816

/// The bytes of a Type 2 tag's memory, read on demand through ``TagMemory``: a byte's page is
/// read the first time a byte of it is asked for, and every page a read returned (4 bytes, or 16
/// from readers that pass on the tag's whole READ answer) is kept, so no page is read twice and
/// no page past the last one needed is read.
///
/// A tag's READ rolls over to page 0 past its last page, so a capability container that claims
/// more memory than the tag has would hand the walk the UID pages as data. Every page from 4 on is
/// checked before its first byte is used: one that could be page 0 (three bytes and the ISO 14443-3
/// check byte `88 ⊕ UID0 ⊕ UID1 ⊕ UID2` of a 7-byte UID, as every NXP Type 2 tag has) is compared
/// with page 0, read for it, and a match stops the read as past the tag's memory. A tag whose page
/// 0 has no such check byte is not checked.
struct Type2PageReader {
    /// Page addresses are one byte: 256 pages of 4 bytes are all a READ (`30 <page>`) reaches.
    static let addressableBytes = 256 * 4

    let memory: any TagMemory
    let budget: SessionBudget
    /// The pages read so far, by page number.
    private(set) var pages: [Int: [UInt8]] = [:]
    /// How many reads were sent.
    private(set) var reads = 0
    /// The pages from ``firstDataPage`` on already checked for a rollover to page 0.
    private var checked: Set<Int> = []

    /// The first page after the UID, lock and capability container pages.
    static let firstDataPage = 4

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
        if page >= Self.firstDataPage, checked.insert(page).inserted { try checkRollover(page) }
        return pages[page]![address % 4]
    }

    /// Whether 4 bytes could be page 0 of a Type 2 tag: UID0–UID2, then BCC0, the check byte of
    /// ISO 14443-3 cascade level 1 with its cascade tag `88`.
    static func couldBePageZero(_ bytes: [UInt8]) -> Bool {
        bytes.count == 4 && bytes[3] == 0x88 ^ bytes[0] ^ bytes[1] ^ bytes[2]
    }

    /// Stops the read when `page` is page 0 read back: the tag rolled over, so its memory ends
    /// before `page`.
    private mutating func checkRollover(_ page: Int) throws(NDEFTagFailure) {
        guard Self.couldBePageZero(pages[page]!) else { return }
        if pages[0] == nil { try read(page: 0) }
        guard pages[page] == pages[0] else { return }
        throw .problem(
            "page \(page) reads back as page 0 (the UID): the tag's memory ends before it, so the data runs past the tag's memory; the capability container claims more than the tag holds"
        )
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
