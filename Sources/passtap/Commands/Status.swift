import ArgumentParser
import Foundation
import ISO7816
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
        let (version, instance) = (UntrustedText.escaped(status.version), UntrustedText.escaped(status.instance))
        print("passtapd \(version) (protocol \(status.protocolVersion)), instance \(instance), up \(Output.duration(status.uptimeSeconds))")
        Output.readers(status.readers)
    }
}
