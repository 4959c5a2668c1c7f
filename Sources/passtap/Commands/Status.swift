import ArgumentParser
import Foundation
import PassTapProtocol

/// `passtap status`: the daemon's version, protocol, instance, uptime and readers.
struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's version, uptime and readers.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        let status = try await CLIRunner.run(options) { session in
            try await session.call(.status, NoParams(), as: StatusResult.self)
        }
        if options.json { return try Output.json(status) }
        print("passtapd \(status.version) (protocol \(status.protocolVersion)), instance \(status.instance), up \(Output.duration(status.uptimeSeconds))")
        Output.readers(status.readers)
    }
}
