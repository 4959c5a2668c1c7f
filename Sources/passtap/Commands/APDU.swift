import ArgumentParser
import ISO7816
import PassTapProtocol

/// `passtap apdu READER HEX`: one APDU to the card on a reader.
struct APDU: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apdu",
        abstract: "Send one APDU to the card on a reader and print the answer.",
        discussion: """
            READER is a reader id or a unique part of one (see `passtap readers`). 61xx and 6Cxx \
            answers are followed unless --raw. Needs `allow_transmit = true` in the daemon's [socket].
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Reader id, or a unique part of it.")
    var reader: String

    @Argument(help: "The command APDU in hex (spaces allowed), e.g. 00A4040007A0000000031010.")
    var hex: String

    @Flag(help: "Send exactly these bytes: no GET RESPONSE for 61xx, no resend for 6Cxx.")
    var raw = false

    func validate() throws {
        _ = try CommandParsing.apdu(hex)
    }

    func run() async throws {
        let command = try CommandParsing.apdu(hex)
        let (typed, raw) = (reader, raw)
        let result = try await CLIRunner.run(options) { session in
            let readers = try await session.call(.readersList, NoParams(), as: ReadersListResult.self).readers
            let id = try ReaderResolver.resolve(typed, among: readers)
            return try await session.call(
                .cardTransmit, CardTransmitParams(reader: id, apdu: command.bytes.hexString, raw: raw), as: CardTransmitResult.self)
        }
        if options.json { return try Output.json(result) }
        print(CommandParsing.describe(result))
    }
}

/// Parsing and printing shared by `apdu` and `shell`.
enum CommandParsing {
    static func apdu(_ text: String) throws(ValidationError) -> CommandAPDU {
        let bytes: [UInt8]
        do {
            bytes = try [UInt8](hex: text)
        } catch {
            throw ValidationError("not an APDU: \(error)")
        }
        do {
            return try CommandAPDU(bytes: bytes)
        } catch {
            throw ValidationError("not an APDU: \(error)")
        }
    }

    static func describe(_ result: CardTransmitResult) -> String {
        let data = result.response.isEmpty ? "(no data)" : UntrustedText.escaped(result.response)
        return "\(data)\nSW \(UntrustedText.escaped(result.sw)): \(UntrustedText.escaped(result.meaning))"
    }
}
