import ArgumentParser
import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol

/// `passtap pass-read READER` (or `vas-read`, its name before 0.3.0): wait for the next tap on a
/// reader and print the pass of the wallet that answered: Apple VAS entries for an iPhone, the
/// Smart Tap record for an Android phone.
struct PassRead: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pass-read",
        abstract: "Wait for the next tap on a reader and print its wallet pass: Apple VAS (iPhone) or Google Smart Tap (Android).",
        discussion: """
            The pass.read method; vas-read is the same command under its old name. A card already \
            on the reader does not count, nor do tags and memory cards: the next phone or ISO-DEP \
            card to arrive is read. --merchant (repeatable) asks only those configured Apple pass \
            type ids in that tap. Exit codes: 0 when a pass was read, 65 when the tap gave none, \
            75 when no phone or card came within --wait (tags that came are counted in the message).
            """,
        aliases: ["vas-read"])

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Reader id, or a unique part of it.")
    var reader: String

    @Option(name: .customLong("merchant"), help: "A configured Apple pass type id to ask for (repeat for several; default: all).")
    var merchants: [String] = []

    @Option(help: "Seconds to wait for a phone.")
    var wait: Double = 30

    func validate() throws {
        guard wait >= 0.001, wait <= 600 else { throw ValidationError("--wait must be from 0.001 to 600 seconds") }
    }

    func run() async throws {
        let (typed, merchants, milliseconds) = (reader, merchants, Int(wait * 1000))
        let (id, answer) = try await CLIRunner.run(options, timeout: false) { session in
            let readers = try await session.call(.readersList, NoParams(), as: ReadersListResult.self).readers
            let id = try ReaderResolver.resolve(typed, among: readers)
            let params = VASReadParams(reader: id, merchants: merchants.isEmpty ? nil : merchants, timeoutMilliseconds: milliseconds)
            let answer = try await session.answer(.passRead, params, as: VASReadResult.self)
            // Every error but the wait's end is the daemon's to word.
            if case .failure(let error) = answer, error.code != .timeout {
                throw CLIError.rpc(code: error.code.rawValue, message: error.message, reason: error.data?.reason)
            }
            return (id, answer)
        }
        let result: VASReadResult
        switch answer {
        case .success(let read):
            result = read
        case .failure(let error):
            FileHandle.standardError.write(Data("passtap: \(Self.nothingCame(on: id, within: wait, skippedTaps: error.data?.skippedTaps ?? 0))\n".utf8))
            throw ExitCode(75)
        }
        if options.json {
            try Output.json(result)
        } else {
            let tap = result.result
            let reader = UntrustedText.escaped(result.reader.rawValue)
            print("[\(reader)] uid=\(tap.card.uid?.hex ?? "-")" + (tap.error.map { " error=\($0.code.rawValue) (\(UntrustedText.escaped($0.message)))" } ?? ""))
            ReadResultLines.render(tap).forEach { print("  " + $0) }
        }
        guard result.result.session?.readAPass == true else { throw ExitCode(65) }
    }

    /// The message when `--wait` ran out: whether taps came that do not count (tags and memory
    /// cards, `skippedTaps`), and what to do.
    static func nothingCame(on reader: ReaderID, within wait: Double, skippedTaps: Int) -> String {
        let place = "\(UntrustedText.escaped(reader.rawValue)) within --wait \(String(format: "%g", wait)) s"
        guard skippedTaps > 0 else { return "no card arrived on \(place): tap again, or raise --wait" }
        let taps = skippedTaps == 1 ? "1 tap" : "\(skippedTaps) taps"
        return "no phone arrived on \(place), but \(taps) of a tag or memory card came: tags do not count for "
            + "pass-read (they have no wallet; `passtap watch` shows their NDEF records). Tap a phone, or raise --wait"
    }
}
