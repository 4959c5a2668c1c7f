import ArgumentParser
import Foundation

/// Runs a command's exchange with the daemon and turns failures into a message and an exit code.
enum CLIRunner {
    static func run<Result: Sendable>(
        _ options: GlobalOptions, timeout: Bool = true, _ body: @escaping @Sendable (inout RPCSession) async throws -> Result
    ) async throws -> Result {
        do {
            return try await RPCSession.run(socket: options.socketPath, timeout: timeout ? options.timeout : nil, body)
        } catch let error as CLIError {
            FileHandle.standardError.write(Data("passtap: \(error)\n".utf8))
            throw error.exitCode
        }
    }
}
