import PassTapCore
import Testing

@testable import PassTapDaemon

/// systemd's `STATUS=` line counts web clients only with `[web] listen`, and names no token.
@Suite struct StatusLineTests {
    @Test func webClientsAppearOnlyWithTheWebListener() {
        let readers = [ReaderInfo(id: .pcsc("Zeta Reader 00 00"), name: "Zeta Reader 00 00", backend: "pcsc", state: .empty)]
        #expect(Daemon.statusLine(readers: readers, clients: 2, lastTap: nil) == "1 reader (1 usable), 2 clients, no tap yet")
        #expect(
            Daemon.statusLine(readers: readers, clients: 0, webClients: 1, lastTap: nil)
                == "1 reader (1 usable), 0 clients, 1 web client, no tap yet")
    }

    /// A listener that is down is named, with its reason, so `systemctl status` shows it.
    @Test func aListenerThatIsDownIsNamedWithItsReason() {
        let line = Daemon.statusLine(
            readers: [], clients: 0, webClients: 0, lastTap: nil,
            problems: ["web listener is down: cannot listen for web on 127.0.0.1:8941 ([web] listen): Address already in use"])
        #expect(line == "0 readers (0 usable), 0 clients, 0 web clients, no tap yet; DEGRADED: web listener is down: cannot listen for web on 127.0.0.1:8941 ([web] listen): Address already in use")
    }
}
