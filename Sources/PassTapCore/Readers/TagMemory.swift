/// The memory of an NFC Forum Type 2 tag (MIFARE Ultralight, NTAG), read page by page: what a
/// backend hands the session for a memory card that has no ISO-DEP channel.
///
/// A page is 4 bytes. Implementations block the calling thread and are used only by the reader's
/// own thread, like ``CardChannel``. The backend gives a tap one only for a card it has told
/// apart as Ultralight or NTAG (by the PC/SC ATR's card name, or by ATQA and SAK), never for a
/// MIFARE Classic card, whose memory needs authentication.
public protocol TagMemory: AnyObject {
    /// Reads the memory from `page` on: 16 bytes (four pages, as the tag's READ command `30`
    /// answers and most PC/SC readers pass on) or 4 bytes (the one page, from readers that return
    /// only that). The caller takes the first 4 and asks again for the next page when it needs more.
    /// - Throws: ``CardTransportError`` when the tag or the reader cannot answer, or refuses the
    ///   page (past the end of the tag's memory, for example).
    func read(page: UInt8) throws(CardTransportError) -> [UInt8]
}
