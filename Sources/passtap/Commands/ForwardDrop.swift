import ForwardSettings
import ArgumentParser
import ISO7816
import PassTapProtocol

/// `passtap forward drop NAME`: the sink's whole backlog goes, without a question.
struct ForwardDrop: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drop",
        abstract: "Drop everything a sink still has to deliver (needs the manage role).",
        discussion: """
            Drops the sink's pending and dead events at once, without asking: they are never \
            delivered to it. passtapd announces it with a forward.dropped event (reason \
            requested). Use it for a removed sink whose backlog should not wait for \
            removed_sink_keep_hours, or for a sink whose backlog is no longer wanted. Exit codes: \
            0 done (also when nothing was left), 64 no sink has that name, 69 the outbox cannot \
            be used or the daemon refused (the manage role: see [access] manage).
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The sink's name (passtap forward status lists configured and removed ones).", valueName: "name"))
    var name: String

    func run() async throws {
        let params = ForwardSinkParams(sink: name)
        let result = try await CLIRunner.run(options) { session in
            try await session.call(.forwardDrop, params, as: ForwardDropResult.self)
        }
        if options.json { return try Output.json(result) }
        print("\(UntrustedText.escaped(result.sink)): dropped \(result.dropped) event\(result.dropped == 1 ? "" : "s")")
    }
}
