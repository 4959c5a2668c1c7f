import ArgumentParser
import Foundation
import ISO7816

/// Runs a command's exchange with the daemon and turns failures into a message and an exit code.
enum CLIRunner {
    /// - Parameter passingDaemonErrors: hand the daemon's JSON-RPC errors (`CLIError.rpc`) to the
    ///   caller instead of exiting, for a command that goes on after one (`passtap shell`).
    /// - Parameter unreachableExit: the exit code when the daemon cannot be reached or stops
    ///   answering, instead of its sysexits code (`passtap status`: 2, down).
    static func run<Result: Sendable>(
        _ options: GlobalOptions, timeout: Bool = true, passingDaemonErrors: Bool = false, unreachableExit: ExitCode? = nil,
        _ body: @escaping @Sendable (inout RPCSession) async throws -> Result
    ) async throws -> Result {
        do {
            let daemon = try DaemonIdentity.resolve(override: options.daemonUser)
            return try await RPCSession.run(
                socket: options.socketPath, daemon: daemon, timeout: timeout ? options.timeout : nil, body)
        } catch CLIError.rpc(let code, let message, let reason) where passingDaemonErrors {
            throw CLIError.rpc(code: code, message: message, reason: reason)
        } catch let error as CLIError {
            // The daemon's messages can name readers and quote what a card sent; a reader list
            // comes with its names escaped and a reader a line (ReaderResolver).
            let message = if case .reader(let list) = error { list } else { UntrustedText.escaped(error.description) }
            FileHandle.standardError.write(Data("passtap: \(message)\n".utf8))
            if let unreachableExit, error.isUnreachable { throw unreachableExit }
            throw error.exitCode
        }
    }
}
