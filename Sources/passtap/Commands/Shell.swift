import ArgumentParser
import Foundation
import ISO7816
import PassTapCore
import PassTapProtocol

/// `passtap shell READER`: an interactive prompt for poking a card with APDUs.
struct Shell: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Type APDUs in hex, see the response, status word and its meaning.",
        discussion: "Commands at the prompt: an APDU in hex; `raw HEX` (no 61xx/6Cxx handling); `help`; `quit`.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Reader id, or a unique part of it.")
    var reader: String

    /// Each APDU goes on a connection of its own, so a shell left idle is never cut off by the
    /// daemon's `[socket] idle_timeout_ms`.
    func run() async throws {
        /// Each answer as it comes, into a pipe or a file too.
        func show(_ text: String) {
            print(text)
            fflush(nil)
        }
        let typed = reader
        let interactive = isatty(STDIN_FILENO) == 1
        let id = try await CLIRunner.run(options) { session in
            let readers = try await session.call(.readersList, NoParams(), as: ReadersListResult.self).readers
            return try ReaderResolver.resolve(typed, among: readers)
        }
        let shown = UntrustedText.escaped(id.rawValue)
        if interactive { show("connected to \(shown); type an APDU in hex, `help`, or `quit`") }
        for await line in StandardInputLines(prompt: interactive ? "\(shown)> " : nil) {
            let words = line.trimmingCharacters(in: .whitespaces)
            if words.isEmpty { continue }
            if words == "quit" || words == "exit" { return }
            if words == "help" {
                show("HEX      send an APDU (61xx/6Cxx followed)\nraw HEX  send exactly these bytes\nquit     leave")
                continue
            }
            let raw = words.hasPrefix("raw ")
            let hex = raw ? String(words.dropFirst(4)) : words
            let command: CommandAPDU
            do {
                command = try CommandParsing.apdu(hex)
            } catch {
                show("error: \(error)")
                continue
            }
            let params = CardTransmitParams(reader: id, apdu: command.bytes.hexString, raw: raw)
            do {
                let result = try await CLIRunner.run(options, timeout: false, passingDaemonErrors: true) { session in
                    try await session.call(.cardTransmit, params, as: CardTransmitResult.self)
                }
                show(CommandParsing.describe(result))
            } catch CLIError.rpc(_, let message, let reason) {
                show("error: \(UntrustedText.escaped(message)) (\(UntrustedText.escaped(reason ?? "error")))")
            }
        }
    }
}

/// Lines typed on standard input. Each line is read on a short-lived thread of its own, so no task
/// blocks on `read`, and the prompt appears only after the previous answer was printed.
struct StandardInputLines: AsyncSequence, AsyncIteratorProtocol {
    typealias Element = String
    let prompt: String?

    func makeAsyncIterator() -> StandardInputLines { self }

    mutating func next() async -> String? {
        if let prompt {
            FileHandle.standardOutput.write(Data(prompt.utf8))
        }
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: readLine()) }.start()
        }
    }
}
