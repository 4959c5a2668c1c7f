import ISO7816
import Logging
import PassTapCore

/// The body of one reader's thread: waits for cards with `SCardGetStatusChange` on its own
/// context, runs the tap's session, serves queued requests while the card stays, reports removal.
struct PCSCReaderLoop: Sendable {
    /// Each wait also ends after this long, so a lost `SCardCancel` (sent just before the wait
    /// began) delays a stop or a request by at most this much. Not polling: nothing is done on
    /// a timeout but to wait again.
    static let waitSliceMilliseconds: UInt32 = 1000
    /// `FF CA 00 00 00`: PC/SC part 3 GET DATA, the card's UID.
    static let getUID: [UInt8] = [0xFF, 0xCA, 0x00, 0x00, 0x00]

    let slot: ReaderSlot
    let tapHandler: any TapHandler
    let engine: SessionEngine
    let publish: TapCoordinator.Publish
    let logger: Logger

    func run() {
        defer {
            slot.setState(.unavailable)
            slot.failPending(.readerUnavailable(slot.id))
        }
        let context: PCSCContext
        do {
            context = try PCSCContext(logger: logger)
        } catch {
            logger.warning("Reader thread cannot reach pcscd", metadata: ["reader.id": "\(slot.id)", "error": "\(error)"])
            return
        }
        guard slot.attach(context) else { return }
        defer {
            _ = slot.attach(nil)
            logger.debug("Reader thread ended", metadata: ["reader.id": "\(slot.id)"])
        }
        var watch = ReaderWatch(name: slot.name, state: ReaderWatch.unaware)
        while !slot.isStopping {
            do {
                watch = try context.waitForChange([ReaderWatch(name: slot.name, state: watch.known)], timeoutMilliseconds: Self.waitSliceMilliseconds)[0]
            } catch where error.code == .timeout || error.code == .cancelled {
                failRequestsWithoutCard()
                continue
            } catch {
                logger.info("Reader wait ended", metadata: ["reader.id": "\(slot.id)", "error": "\(error)"])
                return
            }
            if watch.isGone { return }
            if watch.hasCard {
                watch = serveCard(context: context, watch: watch)
                if watch.isGone { return }
            } else {
                slot.setState(.empty)
            }
        }
    }

    /// Requests that raced with a removal: the slot says empty now, so answer them.
    private func failRequestsWithoutCard() {
        if slot.info.state != .present { slot.failPending(.noCard(slot.id)) }
    }

    /// One card's stay in the field. Returns the reader state that ended it.
    private func serveCard(context: PCSCContext, watch arrival: ReaderWatch) -> ReaderWatch {
        let connection: PCSCCardConnection
        do {
            connection = try PCSCCardConnection(context: context, readerName: slot.name, logger: logger)
        } catch {
            logger.warning("Cannot connect to the card", metadata: ["reader.id": "\(slot.id)", "error": "\(error)"])
            return arrival
        }
        let atr = (try? connection.atr()) ?? arrival.atr
        let card = CardInfo(atr: atr.hexString, uid: readUID(connection))
        slot.setState(.present)
        publish(.cardInserted, slot.id, .card(card))
        tapHandler.handleTap(reader: slot.id, card: card, channel: connection)

        var watch = arrival
        let arrivalCount = arrival.state >> 16
        while !slot.isStopping {
            for request in slot.takeRequests() {
                request.reply.resume(returning: execute(request, on: connection))
            }
            do {
                watch = try context.waitForChange([ReaderWatch(name: slot.name, state: watch.known)], timeoutMilliseconds: Self.waitSliceMilliseconds)[0]
            } catch where error.code == .timeout || error.code == .cancelled {
                continue
            } catch {
                watch.state = ReaderWatch.unavailable
                break
            }
            // Gone, empty, or removed and presented again between two waits (the event count moved).
            if !watch.hasCard || watch.isGone || watch.state >> 16 != arrivalCount { break }
        }
        slot.setState(watch.isGone ? .unavailable : .empty)
        slot.failPending(.noCard(slot.id))
        // LEAVE when the card went (nothing to reset, and another client may still hold it);
        // RESET when PassTap stops with a card in the field, so a phone's session is released.
        connection.disconnect(reset: slot.isStopping)
        publish(.cardRemoved, slot.id, .cardRemoved)
        // A card presented again in between is seen by the next wait: make it look new.
        if watch.hasCard { watch.state = ReaderWatch.empty }
        return watch
    }

    private func readUID(_ connection: PCSCCardConnection) -> String? {
        guard let answer = try? connection.exchange(Self.getUID), answer.count > 2,
            answer.suffix(2) == [0x90, 0x00]
        else { return nil }
        return Array(answer.dropLast(2)).hexString
    }

    private func execute(_ request: TransmitRequest, on connection: PCSCCardConnection) -> Result<ResponseAPDU, ReaderCommandError> {
        do {
            if request.raw {
                let answer = try connection.transmit(request.command.bytes)
                guard let response = try? ResponseAPDU(bytes: answer) else {
                    return .failure(.transport(CardTransportError(.malformedResponse, "the card answered \(answer.count) byte(s), fewer than the 2 status bytes")))
                }
                return .success(response)
            }
            return .success(try engine.send(request.command, on: connection))
        } catch {
            return .failure(.transport(error))
        }
    }
}
