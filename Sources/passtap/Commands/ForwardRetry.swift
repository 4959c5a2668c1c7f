import ForwardSettings
import ArgumentParser
import ISO7816
import PassTapProtocol

/// `passtap forward retry NAME`: the sink's dead events go back to its queue.
struct ForwardRetry: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Send a sink's dead events again (needs the manage role).",
        discussion: """
            Events a sink refused for good (a webhook's 4xx other than 408 and 429) wait on its \
            dead list; this puts them back in its queue, ahead of its other pending events. Exit \
            codes: 0 done (also when nothing was dead), 64 no sink has that name, 69 the outbox \
            cannot be used or the daemon refused (the manage role: see [access] manage).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The sink's name in passtapd.toml (passtap forward status lists them).", valueName: "name"))
    var name: String

    func run() async throws {
        let params = ForwardSinkParams(sink: name)
        let result = try await CLIRunner.run(options) { session in
            try await session.call(.forwardRetry, params, as: ForwardRetryResult.self)
        }
        if options.json { return try Output.json(result) }
        print("\(UntrustedText.escaped(result.sink)): \(result.requeued) dead event\(result.requeued == 1 ? "" : "s") queued again")
    }
}
