import ISO7816
import PassTapCore
import PassTapTestSupport

/// A Type 4 tag's files for ``ScriptedCard``'s `onCommand`: the NDEF application answers SELECT
/// by name (through `applications`), its files SELECT by file id (`00 A4 00 0C`) and READ BINARY
/// (`00 B0`), which refuses (`6700`) an Le over the container's MLe in the NDEF file, as a strict
/// tag does.
final class Type4Tag {
    static let application = "D2760000850101"

    var files: [UInt16: [UInt8]]
    var mle: Int
    private var selected: UInt16?

    /// A tag whose CC gives MLe `mle`, MLc `mlc`, NDEF file `E104` of `maximumFileBytes`, and
    /// whose NDEF file holds NLEN then `message`.
    init(message: [UInt8], mle: Int = 0x3B, mlc: Int = 0x34, maximumFileBytes: Int = 0x0800, nlen: Int? = nil) {
        self.mle = mle
        let length = nlen ?? message.count
        let cc: [UInt8] = [
            0x00, 0x0F, 0x20, UInt8(mle >> 8), UInt8(mle & 0xFF), UInt8(mlc >> 8), UInt8(mlc & 0xFF),
            0x04, 0x06, 0xE1, 0x04, UInt8(maximumFileBytes >> 8), UInt8(maximumFileBytes & 0xFF), 0x00, 0xFF,
        ]
        files = [0xE103: cc, 0xE104: [UInt8(length >> 8), UInt8(length & 0xFF)] + message]
    }

    /// A card with this tag's application and files installed.
    func card() -> ScriptedCard {
        let card = ScriptedCard()
        card.applications[Self.application] = []
        card.onCommand = { [self] command in answer(command) }
        return card
    }

    func answer(_ command: [UInt8]) -> [UInt8]? {
        guard command.count >= 4, command[0] == 0x00 else { return nil }
        switch (command[1], command[2], command[3]) {
        case (0xA4, 0x00, 0x0C):
            guard command.count == 7, command[4] == 2 else { return [0x67, 0x00] }
            let id = UInt16(command[5]) << 8 | UInt16(command[6])
            guard files[id] != nil else { return [0x6A, 0x82] }
            selected = id
            return [0x90, 0x00]
        case (0xB0, _, _):
            guard let id = selected, let file = files[id], command.count == 5 else { return [0x69, 0x86] }
            let offset = Int(command[2]) << 8 | Int(command[3])
            let length = command[4] == 0 ? 256 : Int(command[4])
            guard length <= mle || id == 0xE103 else { return [0x67, 0x00] }
            guard offset < file.count else { return [0x6B, 0x00] }
            return Array(file[offset..<min(file.count, offset + length)]) + [0x90, 0x00]
        default:
            return nil
        }
    }

    /// The commands of a Type 4 read up to the NDEF file's NLEN.
    static let detection: [[UInt8]] = [
        [0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01, 0x00],
        [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03],
        [0x00, 0xB0, 0x00, 0x00, 0x0F],
        [0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x04],
        [0x00, 0xB0, 0x00, 0x00, 0x02],
    ]
}
