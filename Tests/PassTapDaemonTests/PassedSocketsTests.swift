import Testing

@testable import PassTapDaemon

/// sd_listen_fds(3)'s variables, as systemd sets them for a service with socket units.
@Suite struct PassedSocketsTests {
    @Test func socketsStartAtThreeAndAreGroupedByTheirNames() {
        let passed = PassedSockets.read(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "web:web:metrics"], pid: 42)
        #expect(passed.byName == ["web": [3, 4], "metrics": [5]])
    }

    @Test func socketsForAnotherProcessOrNoneAreNone() {
        #expect(PassedSockets.read(environment: ["LISTEN_PID": "41", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "web"], pid: 42).byName.isEmpty)
        #expect(PassedSockets.read(environment: ["LISTEN_FDS": "1"], pid: 42).byName.isEmpty)
        #expect(PassedSockets.read(environment: [:], pid: 42).byName.isEmpty)
    }

    /// A socket without a name (no `FileDescriptorName=`, fewer names than sockets) is `unknown`,
    /// which no listener serves: passtapd closes it and says which names it serves.
    @Test func anUnnamedSocketIsUnknownAndNoListenerTakesIt() {
        var passed = PassedSockets.read(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "web"], pid: 42)
        #expect(passed.take("web") == [3])
        #expect(passed.byName == ["unknown": [4]])
        #expect(Daemon.unservedHint("unknown").contains("web and metrics"))
        #expect(Daemon.unservedHint("metrics").contains("[metrics] listen is not set"))
    }
}
