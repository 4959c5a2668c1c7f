import ArgumentParser
import ISO7816
import PassTapCore
import PassTapProtocol

/// `passtap vas-read READER`: wait for the next tap on a reader and print its Apple VAS entries, or
/// its Smart Tap record for an Android phone.
struct VASRead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vas-read",
        abstract: "Wait for the next tap on a reader and print its Apple VAS or Google Smart Tap passes (the vas.read method).",
        discussion: """
            A card already on the reader does not count: the next card to arrive is read. --merchant \
            (repeatable) asks only those configured pass type ids in that tap. Exit codes: 0 when a \
            pass was read, 65 when the tap gave none, 75 when no card came within --wait.
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Reader id, or a unique part of it.")
    var reader: String

    @Option(name: .customLong("merchant"), help: "A configured pass type id to ask for (repeat for several; default: all).")
    var merchants: [String] = []

    @Option(help: "Seconds to wait for a card.")
    var wait: Double = 30

    func validate() throws {
        guard wait >= 0.001, wait <= 600 else { throw ValidationError("--wait must be from 0.001 to 600 seconds") }
    }

    func run() async throws {
        let (typed, merchants, milliseconds) = (reader, merchants, Int(wait * 1000))
        let result = try await CLIRunner.run(options, timeout: false) { session in
            let readers = try await session.call(.readersList, NoParams(), as: ReadersListResult.self).readers
            let id = try ReaderResolver.resolve(typed, among: readers)
            let params = VASReadParams(reader: id, merchants: merchants.isEmpty ? nil : merchants, timeoutMilliseconds: milliseconds)
            return try await session.call(.vasRead, params, as: VASReadResult.self)
        }
        if options.json {
            try Output.json(result)
        } else {
            let tap = result.result
            let reader = UntrustedText.escaped(result.reader.rawValue)
            print("[\(reader)] uid=\(tap.card.uid?.hex ?? "-")" + (tap.error.map { " error=\($0.code.rawValue) (\(UntrustedText.escaped($0.message)))" } ?? ""))
            if let vas = tap.vas { VASLines.render(vas).forEach { print("  " + $0) } }
            if let smartTap = tap.smartTap { SmartTapLines.render(smartTap).forEach { print("  " + $0) } }
        }
        guard result.result.session?.readAPass == true else { throw ExitCode(65) }
    }
}
