/// Why a config file was refused: which file, where, which key, and what was expected.
///
/// `passtapd` refuses to start with this message, and `passtapd --check-config` prints it.
public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The config file's path.
    public var file: String
    /// The 1-based line, when it can be found.
    public var line: Int?
    /// The key path, e.g. `session.aids[1]` or `reader[0].match`; empty for whole-file problems.
    public var keyPath: String
    /// What was expected and what was found, for a person.
    public var problem: String

    /// Creates an error.
    public init(file: String, line: Int?, keyPath: String, problem: String) {
        self.file = file
        self.line = line
        self.keyPath = keyPath
        self.problem = problem
    }

    public var description: String {
        let place = line.map { "\(file):\($0)" } ?? file
        return keyPath.isEmpty ? "\(place): \(problem)" : "\(place): \(keyPath): \(problem)"
    }
}
