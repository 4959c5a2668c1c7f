import ISO7816
import PassTapCore
import Synchronization

/// A reader backend for socket tests: a fixed reader list and a scripted answer to `transmit`.
/// It answers for `pcsc:` reader ids, as the readers of the tests are named.
final class FakeReaderBackend: ReaderBackend {
    typealias Script = @Sendable (CommandAPDU, Bool, ReaderID) throws(ReaderCommandError) -> ResponseAPDU

    struct Call: Sendable, Hashable {
        var command: [UInt8]
        var raw: Bool
        var reader: ReaderID
    }

    let name = ReaderID.Backend.pcsc
    private let readerList: [ReaderInfo]
    private let script: Script
    private let recorded = Mutex<[Call]>([])

    init(readers: [ReaderInfo] = [], script: @escaping Script = { _, _, reader throws(ReaderCommandError) in throw .noCard(reader) }) {
        self.readerList = readers
        self.script = script
    }

    var calls: [Call] { recorded.withLock { $0 } }

    func start() {}

    func shutdown(deadline: Duration) async {}

    func readers() -> [ReaderInfo] { readerList }

    func transmit(_ apdu: CommandAPDU, raw: Bool, on reader: ReaderID) async throws(ReaderCommandError) -> ResponseAPDU {
        recorded.withLock { $0.append(Call(command: apdu.bytes, raw: raw, reader: reader)) }
        return try script(apdu, raw, reader)
    }
}
