import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built `passtapd` refuses a socket directory another user could change (docs/operations.md,
/// "The socket path"):
/// one owned by `nobody`, or one its group or everyone may write, and a file where a directory
/// should be. Both at start and in `--check-config` (the unit's `ExecStartPre`), naming the
/// config file, the line and key of `[socket] path`, the directory and the socket; no socket is
/// made.
@Suite(.enabled(if: getuid() == 0, "needs root to give a directory to nobody"))
struct SocketDirectoryScenarioTests {
    enum Unsafe: String, CaseIterable, Sendable {
        case ownedByNobody
        case groupWritable
        case worldWritable
        case aFileInTheWay

        /// Makes `directory` unsafe this way; returns what the refusal must say about it.
        func make(_ directory: String) -> String {
            if self == .aFileInTheWay {
                #expect(FileManager.default.createFile(atPath: directory, contents: Data()))
                return "\(directory) is not a directory; set [socket] path in a directory"
            }
            #expect(mkdir(directory, 0o700) == 0)
            switch self {
            case .aFileInTheWay:
                return ""
            case .worldWritable:
                #expect(chmod(directory, 0o777) == 0)
                return "the directory \(directory) is writable by others and not sticky (mode 777)"
            case .ownedByNobody:
                #expect(chmod(directory, 0o755) == 0 && chown(directory, 65534, 65534) == 0)
                return "the directory \(directory) is owned by uid 65534"
            case .groupWritable:
                #expect(chmod(directory, 0o775) == 0)
                return "the directory \(directory) is writable by its group gid \(getegid())"
            }
        }
    }

    @Test(arguments: Unsafe.allCases)
    func anUnsafeSocketDirectoryIsRefusedAtStartAndByCheckConfig(_ unsafe: Unsafe) throws {
        let folder = NSTemporaryDirectory() + "passtap-socketdir-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let directory = folder + "/run"
        let reason = unsafe.make(directory)
        let socket = directory + "/passtapd.sock"
        let config = folder + "/passtapd.toml"
        try "[socket]\npath = \"\(socket)\"\n[pcsc]\nenabled = false\n".write(toFile: config, atomically: true, encoding: .utf8)
        let passtapd = Rig.binaries.appendingPathComponent("passtapd").path

        let check = try Spawned.finish(passtapd, ["--check-config", config], deadline: 30)
        #expect(check.status == 78, "\(check.output)")
        // Named as other config refusals are: file, line of [socket] path, key.
        let refusal = "\(config):2: socket.path: refusing to listen on \(socket): \(reason)"
        #expect(check.output.contains(refusal), "\(check.output)")

        let start = try Spawned.finish(passtapd, ["--config", config], deadline: 30)
        #expect(start.status == 71, "\(start.output)")
        #expect(start.output.contains(refusal), "\(start.output)")
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    /// What the unit does before its runtime directory exists: the nearest directory that exists
    /// is judged, and a safe one passes.
    @Test func checkConfigJudgesTheNearestDirectoryThatExists() throws {
        let folder = NSTemporaryDirectory() + "passtap-socketdir-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let config = folder + "/passtapd.toml"
        try "[socket]\npath = \"\(folder)/run/passtapd.sock\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let check = try Spawned.finish(Rig.binaries.appendingPathComponent("passtapd").path, ["--check-config", config], deadline: 30)
        #expect(check.status == 0, "\(check.output)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/run"))
    }
}
