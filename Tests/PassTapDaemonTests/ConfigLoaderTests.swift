import Foundation
import ISO7816
import Logging
import PassTapCore
import PassTapDaemon
import Testing

@Suite(.timeLimit(.minutes(1))) struct ConfigLoaderTests {
    @Test func emptyFileGivesTheDefaults() throws {
        let configuration = try ConfigLoader.parse("", file: "t.toml")
        var expected = Configuration()
        expected.access.read = [.group(getegid())]  // the group a new socket file gets
        expected.access.manage = [.user(geteuid())]  // the daemon's own user
        #expect(configuration == expected)
        #expect(configuration.socket.path == "/run/passtap/passtapd.sock")
        #expect(configuration.socket.mode == 0o660)
        #expect(configuration.events.buffer == 1024)
        #expect(configuration.events.clientQueue == 256)
        #expect(configuration.events.bufferBytes == 4_194_304)
        #expect(configuration.sessionBudgetMilliseconds == 2000)
        #expect(configuration.socket.allowTransmit == false)
    }

    @Test func shippedExampleConfigParsesWithItsDocumentedValues() throws {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Config/passtapd.toml")
        let configuration = try ConfigLoader.load(path: url.path)
        #expect(configuration.aids.map(\.hex) == ["A0000000031010", "A0000000041010"])
        #expect(configuration.socket.maxClients == 64)
        #expect(configuration.section(.pcsc).enabled)
        #expect(configuration.events.bufferBytes == 4_194_304)
        #expect(configuration.sessionBudgetMilliseconds == 2000)
        #expect(configuration.access.observe == [.everyone] && configuration.access.transmit.isEmpty)
        // [socket] group = "passtap": `read` defaults to that group where it exists (the Debian
        // package makes it), else to the group passtapd runs as.
        #expect(configuration.socket.group == "passtap")
        #expect(configuration.access.read == [.group(getgrnam("passtap")?.pointee.gr_gid ?? getegid())])
        #expect(configuration.socket.maxClientsPerUID == 32 && configuration.socket.idleTimeoutMilliseconds == 60_000)
    }

    @Test func everyFixedKeyIsRead() throws {
        let text = """
            [socket]
            path = "/tmp/p.sock"
            mode = "0600"
            group = "passtap"
            max_clients = 3
            allow_transmit = true
            [events]
            buffer = 10
            client_queue = 5
            buffer_bytes = 100000
            [log]
            level = "debug"
            [pcsc]
            enabled = false
            readers = ["ACS"]
            [session]
            aids = ["a0000000031010"]
            budget_ms = 750
            [[reader]]
            match = "ACS ACR1252"
            aids = ["D2760000850101"]
            """
        let c = try ConfigLoader.parse(text, file: "t.toml")
        #expect(c.socket.path == "/tmp/p.sock")
        #expect(c.socket.mode == 0o600)
        #expect(c.socket.group == "passtap")
        #expect(c.socket.maxClients == 3)
        #expect(c.socket.allowTransmit)
        #expect(c.events.buffer == 10 && c.events.clientQueue == 5 && c.events.bufferBytes == 100_000)
        #expect(c.sessionBudgetMilliseconds == 750)
        #expect(c.logLevel == .debug)
        #expect(c.section(.pcsc).enabled == false && c.section(.pcsc).readers == ["ACS"])
        #expect(c.aids.map(\.hex) == ["A0000000031010"])
        #expect(c.readerOverrides.count == 1)
        #expect(c.aids(for: .pcsc("ACS ACR1252 Dual Reader PICC 00 00")).map(\.hex) == ["D2760000850101"])
        #expect(c.aids(for: .pcsc("Virtual PCD 00 00")).map(\.hex) == ["A0000000031010"])
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let text: String
        let line: Int?
        let keyPath: String
        let mentions: String
        var testDescription: String { keyPath.isEmpty ? mentions : keyPath }
    }

    static let refusals: [Refusal] = [
        .init(text: "[socket]\npath = \"/tmp/x\"\npaht = \"/tmp/y\"\n", line: 3, keyPath: "socket.paht", mentions: "unknown key"),
        .init(text: "[sockets]\npath = \"/tmp/x\"\n", line: 1, keyPath: "sockets", mentions: "unknown key"),
        .init(text: "[socket]\nmax_clients = \"64\"\n", line: 2, keyPath: "socket.max_clients", mentions: "expected an integer, found a string"),
        .init(text: "[socket]\nmax_clients = 0\n", line: 2, keyPath: "socket.max_clients", mentions: "from 1 to 4096"),
        // CRLF line ends: the line is still the third (it was 1, a CRLF file being one Character line).
        .init(text: "[socket]\r\npath = \"/tmp/x\"\r\nmax_clients = 0\r\n", line: 3, keyPath: "socket.max_clients", mentions: "from 1 to 4096"),
        .init(text: "[socket]\nmode = \"0999\"\n", line: 2, keyPath: "socket.mode", mentions: "octal"),
        .init(text: "[socket]\nmode = \"0666\"\n", line: 2, keyPath: "socket.mode", mentions: "expected no access for others"),
        .init(text: "[socket]\npath = \"/tmp/x\"\nmode = \"0661\"\n", line: 3, keyPath: "socket.mode", mentions: "found \"0661\""),
        .init(text: "[socket]\nmode = \"0004\"\n", line: 2, keyPath: "socket.mode", mentions: "last digit 0"),
        .init(text: "[socket]\npath = \"relative.sock\"\n", line: 2, keyPath: "socket.path", mentions: "absolute path"),
        .init(text: "[session]\naids = [\"A0000000031010\", \"A0ZZ\"]\n", line: 2, keyPath: "session.aids[1]", mentions: "5 to 16 bytes in hex"),
        .init(text: "[session]\naids = [\"A000\"]\n", line: 2, keyPath: "session.aids[0]", mentions: "5 to 16 bytes in hex"),
        .init(text: "[session]\naids = \"A0000000031010\"\n", line: 2, keyPath: "session.aids", mentions: "expected an array of strings"),
        .init(text: "[events]\nbuffer_bytes = 65535\n", line: 2, keyPath: "events.buffer_bytes", mentions: "from 65536 to 1073741824"),
        .init(text: "[session]\nbudget_ms = 99\n", line: 2, keyPath: "session.budget_ms", mentions: "from 100 to 60000"),
        .init(text: "[session]\nbudget_ms = 60001\n", line: 2, keyPath: "session.budget_ms", mentions: "from 100 to 60000"),
        .init(text: "[log]\nlevel = \"loud\"\n", line: 2, keyPath: "log.level", mentions: "expected one of trace"),
        .init(text: "[pcsc]\nenabled = \"yes\"\n", line: 2, keyPath: "pcsc.enabled", mentions: "true or false"),
        .init(text: "[[reader]]\nmatch = \"A\"\n[[reader]]\naids = [\"A0000000031010\"]\n", line: 3, keyPath: "reader[1].match", mentions: "every [[reader]] needs one"),
        .init(text: "[[reader]]\nmatch = \"A\"\nspeed = 1\n", line: 3, keyPath: "reader[0].speed", mentions: "unknown key"),
        .init(text: "[socket\npath = 1\n", line: 1, keyPath: "", mentions: "not valid TOML"),
        .init(text: "[socket]\nmax_clients_per_uid = 0\n", line: 2, keyPath: "socket.max_clients_per_uid", mentions: "from 1 to 4096"),
        .init(text: "[socket]\nidle_timeout_ms = 999\n", line: 2, keyPath: "socket.idle_timeout_ms", mentions: "from 1000 to 86400000"),
        .init(text: "[socket]\nvas_reads_per_uid = 0\n", line: 2, keyPath: "socket.vas_reads_per_uid", mentions: "from 1 to 64"),
        .init(text: "[access]\nread = [\"user:root\", \"user:no-such-user-here\"]\n", line: 2, keyPath: "access.read[1]", mentions: "no user \"no-such-user-here\""),
        .init(text: "[access]\ntransmit = [\"group:no-such-group-here\"]\n", line: 2, keyPath: "access.transmit[0]", mentions: "no group"),
        .init(text: "[access]\nobserve = [\"root\"]\n", line: 2, keyPath: "access.observe[0]", mentions: #"expected "*", "user:NAME""#),
        .init(text: "[access]\nobserve = [\"uid:-1\"]\n", line: 2, keyPath: "access.observe[0]", mentions: "a number after \"uid:\""),
        .init(text: "[access]\nadmin = [\"*\"]\n", line: 2, keyPath: "access.admin", mentions: "unknown key"),
    ]

    @Test func accessEntriesAreResolvedAtLoad() throws {
        let c = try ConfigLoader.parse(
            """
            [socket]
            group = "nogroup"
            max_clients_per_uid = 4
            idle_timeout_ms = 5000
            vas_reads_per_uid = 2
            [access]
            observe = ["user:nobody", "gid:7"]
            transmit = ["uid:1234", "group:root", "*"]
            """, file: "t.toml")
        #expect(c.access.observe == [.user(65534), .group(7)])
        // An empty read list is the socket's group.
        #expect(c.access.read == [.group(65534)])
        #expect(c.access.transmit == [.user(1234), .group(0), .everyone])
        #expect(c.socket.maxClientsPerUID == 4 && c.socket.idleTimeoutMilliseconds == 5000 && c.socket.vasReadsPerUID == 2)
    }

    @Test func rolesFollowUidGroupsAndRootHoldsThemAll() {
        let access = Configuration.Access(observe: [.everyone], read: [.group(100), .user(42)], transmit: [.user(7)])
        #expect(access.roles(uid: 0, groups: []) == Set(AccessRole.allCases))
        #expect(access.roles(uid: 42, groups: [1]) == [.observe, .read])
        #expect(access.roles(uid: 5, groups: [5, 100]) == [.observe, .read])
        #expect(access.roles(uid: 7, groups: [7]) == [.observe, .transmit])
        #expect(access.roles(uid: 9, groups: [9]) == [.observe])
        let closed = Configuration.Access(observe: [.user(42)], read: [], transmit: [])
        #expect(closed.roles(uid: 9, groups: [9]).isEmpty)
    }

    @Test(arguments: refusals)
    func badConfigIsRefusedNamingLineKeyAndExpectation(_ refusal: Refusal) {
        #expect {
            _ = try ConfigLoader.parse(refusal.text, file: "/etc/passtap/passtapd.toml")
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.file == "/etc/passtap/passtapd.toml" && error.line == refusal.line
                && error.keyPath == refusal.keyPath && error.description.contains(refusal.mentions)
        }
    }

    @Test func missingFileIsRefusedNamingIt() {
        #expect {
            _ = try ConfigLoader.load(path: "/nonexistent/passtapd.toml")
        } throws: { error in
            (error as? ConfigurationError)?.description == "/nonexistent/passtapd.toml: the config file does not exist"
        }
    }
}
