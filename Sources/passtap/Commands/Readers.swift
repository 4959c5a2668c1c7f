import ArgumentParser
import PassTapProtocol

/// `passtap readers`: every reader the daemon knows, with its state.
struct Readers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List readers: id, backend and state.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let list = try await CLIRunner.run(options) { session in
            try await session.call(.readersList, NoParams(), as: ReadersListResult.self)
        }
        if options.json { return try Output.json(list) }
        Output.readers(list.readers)
    }
}
