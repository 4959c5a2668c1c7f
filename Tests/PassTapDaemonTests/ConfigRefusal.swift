import Foundation
import PassTapCore
import PassTapDaemon
import Testing

extension VASConfigTests.Folder {
    /// The refusal of `text` as a config file in this folder (on a reload of a daemon listening
    /// with `listening`, when given): it names this folder's config file, and none of `secrets`
    /// reaches its message. Records an issue and throws when the text is accepted.
    func refusal(_ text: String, listening: Configuration.Socket? = nil, secrets: [String] = []) throws -> ConfigurationError {
        do {
            _ = try ConfigLoader.parse(text, file: configFile, listening: listening)
        } catch {
            #expect(error.file == configFile)
            for secret in secrets {
                #expect(!error.description.contains(secret), "a secret reached the message: \(error)")
            }
            return error
        }
        Issue.record("accepted: \(text)")
        throw CancellationError()
    }
}
