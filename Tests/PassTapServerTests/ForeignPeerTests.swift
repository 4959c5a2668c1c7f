import Foundation
import PassTapCore
import PassTapProtocol
import PassTapServer
import Testing

/// Roles by peer credentials, with a real peer of another user: a Python client run as
/// `nobody:nogroup` (uid and gid 65534) through `setpriv`, since this test process is root and
/// root always holds every role.
@Suite(.timeLimit(.minutes(1)), .enabled(if: getuid() == 0, "needs root to run a client as another user"))
struct ForeignPeerTests {
    static let nobody: UInt32 = 65534

    /// Sends `lines`, ends its input, and returns every line the server sent until it closed (or
    /// reset the connection).
    /// The child is waited for on a thread of its own, never on the cooperative pool.
    static func runAsNobody(path: String, lines: [String]) async throws -> [String] {
        let (output, status, errors) = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try runBlocking(path: path, lines: lines) })
            }
        }
        #expect(status == 0, "the client as nobody failed: \(errors)")
        return output
    }

    private static func runBlocking(path: String, lines: [String]) throws -> ([String], Int32, String) {
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(20)
            s.connect(sys.argv[1])
            try:
                s.sendall("".join(line + "\\n" for line in sys.argv[2:]).encode())
                s.shutdown(socket.SHUT_WR)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the server closed first; what it sent before is still read below
            data = b""
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break  # closed by the server with our request unread: an end too
                if not chunk:
                    break
                data += chunk
            sys.stdout.write(data.decode())
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups", "/usr/bin/python3", "-c", script, path] + lines
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, process.terminationStatus, String(decoding: errorText, as: UTF8.self))
    }

    /// A socket nobody can reach through its group (0660, group nogroup) in a directory it can enter.
    static func configure(_ access: Configuration.Access) -> (inout Configuration) -> Void {
        { configuration in
            configuration.socket.group = "nogroup"
            configuration.access = access
            configuration.enableVAS(merchants: ["pass.com.example.coffee"])
            configuration.socket.allowTransmit = true
        }
    }

    static func errorCode(_ line: String) throws -> Int? {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        return (object["error"] as? [String: Any])?["code"] as? Int
    }

    @Test func aPeerWithNoRoleGetsOneForbiddenErrorAndIsClosed() async throws {
        let access = Configuration.Access(observe: [.user(12345)], read: [], transmit: [])
        try await ServerHarness.with(configure: Self.configure(access)) { harness in
            chmod(harness.directory, 0o755)
            let lines = try await Self.runAsNobody(path: harness.path, lines: [#"{"jsonrpc":"2.0","id":1,"method":"status"}"#])
            #expect(lines.count == 1)
            let only = try #require(lines.first)
            #expect(try Self.errorCode(only) == -32014)
            #expect(only.contains("user 65534 holds no role"))
        }
    }

    @Test func anObserverMayWatchButNotReadPassesOrTransmit() async throws {
        let access = Configuration.Access(observe: [.everyone], read: [.user(12345)], transmit: [])
        try await ServerHarness.with(configure: Self.configure(access)) { harness in
            chmod(harness.directory, 0o755)
            let lines = try await Self.runAsNobody(
                path: harness.path,
                lines: [
                    #"{"jsonrpc":"2.0","id":1,"method":"status"}"#,
                    #"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":1000}}"#,
                    #"{"jsonrpc":"2.0","id":3,"method":"card.transmit","params":{"reader":"pcsc:Zeta Reader 00 00","apdu":"00A4040000"}}"#,
                ])
            #expect(lines.count == 3)
            guard lines.count == 3 else { return }
            #expect(try Self.errorCode(lines[0]) == nil)
            #expect(lines[0].contains(#""instance""#))
            #expect(try Self.errorCode(lines[1]) == -32014)
            #expect(lines[1].contains("vas.read needs the read role"))
            #expect(try Self.errorCode(lines[2]) == -32014)
            #expect(lines[2].contains("card.transmit needs the transmit role"))
        }
    }

    @Test func aGroupEntryGivesItsMembersTheRole() async throws {
        let access = Configuration.Access(observe: [.everyone], read: [.group(Self.nobody)], transmit: [])
        try await ServerHarness.with(configure: Self.configure(access)) { harness in
            chmod(harness.directory, 0o755)
            // A short vas.read: the role lets it wait, and it times out with no tap.
            let lines = try await Self.runAsNobody(
                path: harness.path,
                lines: [#"{"jsonrpc":"2.0","id":2,"method":"vas.read","params":{"reader":"pcsc:Zeta Reader 00 00","timeout_ms":100}}"#])
            #expect(lines.count == 1)
            #expect(try lines.first.map(Self.errorCode) == -32010)  // timeout, not forbidden
        }
    }
}
