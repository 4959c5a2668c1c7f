import Foundation

/// What `systemd/passtapd.service` imposes on passtapd that a test can reproduce without systemd:
/// the unit's `Environment=`, and a preload library that refuses what its `SystemCallFilter=`
/// refuses on purpose (`scripts/rig/refused_calls_shim.c`) and sends syslog(3) to stderr with the
/// journal's priority prefix (`scripts/rig/syslog_to_stderr.c`), where the journal would record it.
enum ServiceUnit {
    static let file = Rig.repository.appendingPathComponent("systemd/passtapd.service")

    /// The variables of the unit's `Environment=` lines (`KEY=VALUE` words, no quoting).
    static func environment() throws -> [String: String] {
        var variables: [String: String] = [:]
        for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n") where line.hasPrefix("Environment=") {
            for word in line.dropFirst("Environment=".count).split(separator: " ") {
                guard let equals = word.firstIndex(of: "=") else {
                    throw Rig.Failure(description: "\(file.path): '\(line)': expected KEY=VALUE words")
                }
                variables[String(word[..<equals])] = String(word[word.index(after: equals)...])
            }
        }
        return variables
    }

    /// Builds the preload library into `folder` with the system's C compiler; returns its path.
    static func buildPreload(in folder: URL) throws -> String {
        let library = folder.appendingPathComponent("unit_shim.so").path
        let sources = ["refused_calls_shim.c", "syslog_to_stderr.c"].map {
            Rig.repository.appendingPathComponent("scripts/rig/\($0)").path
        }
        try Rig.run("/usr/bin/cc", ["-shared", "-fPIC", "-O2", "-o", library] + sources)
        return library
    }
}
