import ISO7816
import Logging
import PassTapCore

/// One PC/SC reader opened for its thread: waits with `SCardGetStatusChange` on the thread's own
/// context, connects to a card that arrives, and classifies it by its ATR (PC/SC part 3).
final class PCSCReaderDriver: ReaderDriver {
    /// Each wait also ends after this long, so a lost `SCardCancel` (sent just before the wait
    /// began) delays a stop or a request by at most this much. Not polling: nothing is done on
    /// a timeout but to wait again.
    static let waitSliceMilliseconds: UInt32 = 1000
    /// `FF CA 00 00 00`: PC/SC part 3 GET DATA, the card's UID.
    static let getUID: [UInt8] = [0xFF, 0xCA, 0x00, 0x00, 0x00]

    private let port: PCSCReaderPort
    private let context: PCSCContext
    private let logger: Logger
    private var watch: ReaderWatch
    private var connection: PCSCCardConnection?
    /// The event count (top 16 bits of the state) when the current card arrived.
    private var arrivalCount: UInt32 = 0

    init(port: PCSCReaderPort, context: PCSCContext, logger: Logger) {
        self.port = port
        self.context = context
        self.logger = logger
        watch = ReaderWatch(name: port.readerName, state: ReaderWatch.unaware)
    }

    deinit {
        // Runs on the reader's thread, which drops its driver: the release is a call to pcscd.
        port.detach(context)
        context.release()
    }

    private var readerID: ReaderID { .pcsc(port.readerName) }

    /// One wait slice: `.success(true)` when the reader's state changed (now in `watch`),
    /// `.success(false)` when the slice ended or a wake came first, the fault when the reader went
    /// away or cannot be used.
    private func waitForChange() -> Result<Bool, ReaderFault> {
        do {
            watch = try context.waitForChange([ReaderWatch(name: port.readerName, state: watch.known)], timeoutMilliseconds: Self.waitSliceMilliseconds)[0]
        } catch where error.code == .timeout || error.code == .cancelled {
            return .success(false)
        } catch {
            return .failure(error.readerFault)
        }
        // Unknown or unavailable: retried with backoff; the monitor stops a reader that left the list.
        return watch.isGone ? .failure(ReaderFault(.failed, "pcscd reports the reader unavailable")) : .success(true)
    }

    func waitForCard() -> CardWait {
        switch waitForChange() {
        case .failure(let fault): return .failed(fault)
        case .success(false): return .idle
        case .success(true): break
        }
        guard watch.hasCard else { return .idle }
        let connection: PCSCCardConnection
        do {
            connection = try PCSCCardConnection(context: context, readerName: port.readerName, logger: logger)
        } catch where error.code == .sharingViolation {
            // Forget the state, so the next open sees the card again and retries the connect.
            watch = ReaderWatch(name: port.readerName, state: ReaderWatch.unaware)
            return .failed(ReaderFault(.inUse, "another process holds the reader exclusively (\(error.message)); passtapd retries until it lets go"))
        } catch {
            if error.meansServiceGone { return .failed(error.readerFault) }
            // A card that left at once, or does not answer: wait for the next change.
            logger.warning("Cannot connect to the card", metadata: ["reader.id": "\(readerID)", "error": "\(error)"])
            return .idle
        }
        self.connection = connection
        arrivalCount = watch.state >> 16
        let atr = (try? connection.atr()) ?? watch.atr
        let uid = readUID(connection)
        // PC/SC part 3: a storage card's ATR names it (MIFARE, NTAG...); it takes no APDUs. Only a
        // Type 2 tag's pages are read (never a MIFARE Classic's).
        let kind = ContactlessATR.Kind(atr: atr)
        let target: TargetKind = kind.speaksISO7816 ? .isoDep : .memory
        var memory: PCSCTagMemory?
        if case .storageCard(let card) = kind, card.isType2Tag { memory = PCSCTagMemory(connection: connection) }
        return .card(Tap(card: CardInfo(atr: HexBytes(atr), uid: uid.map(HexBytes.init)), target: target, channel: connection, memory: memory, control: connection))
    }

    func waitForRemoval() -> PresenceWait {
        switch waitForChange() {
        case .failure(let fault): return .failed(fault)
        case .success(false): return .present
        case .success(true): break
        }
        // Gone, or removed and presented again between two waits (the event count moved).
        if !watch.hasCard || watch.state >> 16 != arrivalCount { return .removed }
        return .present
    }

    /// A direct connection per call (``PCSCDirectControl``): no card needed.
    var readerControl: (any ReaderControl)? { PCSCDirectControl(context: context, readerName: port.readerName) }

    func endTap(stopping: Bool) {
        // LEAVE when the card went (nothing to reset, and another client may still hold it);
        // RESET when PassTap stops with a card in the field, so a phone's session is released.
        connection?.disconnect(reset: stopping)
        connection = nil
        // A card presented again in between is seen by the next wait: make it look new.
        if watch.hasCard { watch.state = ReaderWatch.empty }
    }

    private func readUID(_ connection: PCSCCardConnection) -> [UInt8]? {
        guard let answer = try? connection.exchange(Self.getUID), answer.count > 2, answer.suffix(2) == [0x90, 0x00] else { return nil }
        return Array(answer.dropLast(2))
    }
}
