import Foundation
import PassTapCore
import PassTapProtocol
import PassTapServer
import Synchronization
import Testing

/// A reload that lands while a connection is being admitted: the connection must not keep a role
/// the reload took away (docs/operations.md, "Start, reload, stop"). The reload is applied from the
/// observer's "client admitted" call, the last step of admission before the connection is served,
/// so the order is forced rather than hoped for.
@Suite(.timeLimit(.minutes(1)), .enabled(if: getuid() == 0, "needs root to run a client as another user"))
struct AdmissionReloadTests {
    /// Runs its action (once) when the first client is admitted.
    final class OnAdmission: Sendable {
        private let action = Mutex<(@Sendable () -> Void)?>(nil)

        func set(_ body: @escaping @Sendable () -> Void) { action.withLock { $0 = body } }

        var observer: SocketServerObserver {
            SocketServerObserver(
                clientsChanged: { delta in
                    guard delta > 0, let body = self.action.withLock({ held in defer { held = nil }; return held }) else { return }
                    body()
                },
                eventsDropped: { _ in })
        }
    }

    static let probe = #"{"jsonrpc":"2.0","id":1,"method":"vas.read","params":{"reader":"pcsc:Alpha Reader 00 00","timeout_ms":0}}"#

    @Test func aReloadThatRevokesReadDuringAnAdmissionLeavesThatConnectionWithoutRead() async throws {
        let hook = OnAdmission()
        let granted = Configuration.Access(observe: [.everyone], read: [.user(ForeignPeerTests.nobody)], transmit: [])
        try await ServerHarness.with(configure: ForeignPeerTests.configure(granted), observer: hook.observer) { harness in
            chmod(harness.directory, 0o755)
            var revoking = SocketServerConfiguration(path: harness.path)
            ForeignPeerTests.configure(Configuration.Access(observe: [.everyone], read: [], transmit: []))(&revoking)
            let revoked = revoking
            hook.set { harness.server.apply(revoked) }
            // `vas.read` needs `read`: a connection holding it gets past the role check (and is
            // refused for its timeout instead). Closed before it answers (its roles changed under
            // it) or refused for want of `read`: either is right.
            let answers = try await ForeignPeerTests.runAsNobody(path: harness.path, lines: [Self.probe])
            #expect(try answers.allSatisfy { try ForeignPeerTests.errorCode($0) == -32014 }, "\(answers)")
            // The next connection is admitted under the reloaded [access] too.
            let next = try await ForeignPeerTests.runAsNobody(path: harness.path, lines: [Self.probe])
            #expect(try next.count == 1 && next.allSatisfy { try ForeignPeerTests.errorCode($0) == -32014 }, "\(next)")
        }
    }
}
