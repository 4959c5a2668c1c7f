import ISO7816
import PassTapCore
import VAS

/// The published payload members of an entry, as the encoder writes them: for reading tests.
extension VASEntry {
    var message: String? { payload?.messageText }
    var messageHex: String? { payload?.message.hexString }
    var timestampRaw: UInt32? { payload?.timestampRaw }
    var timestamp: String? { payload.map { RFC3339.string(from: $0.date) } }
}
