import MetricsSettings
import ForwardSettings
import WebSettings
import PassTapCore
import PassTapDaemon
import Synchronization
import Testing

/// The file descriptor budget (one formula over config keys) and what start-up does with the
/// open-file limit: keep it, raise the soft limit, or refuse naming the keys and the numbers.
@Suite(.timeLimit(.minutes(1))) struct FileDescriptorBudgetTests {
    func budget(_ text: String, eventLoops: Int = 2) throws -> FileDescriptorBudget {
        FileDescriptorBudget(try ConfigLoader.parse(text, file: "t.toml"), eventLoops: eventLoops)
    }

    @Test func theDefaultBudgetIsTheBasePlusSocketClientsPlusPCSCReaders() throws {
        let defaults = try budget("")
        // 32 + 3 × 2 event loops, 64 clients, pcscd's 16 readers and the backend's 2 contexts.
        #expect(defaults.total == 38 + 64 + 18)
        #expect(defaults.terms.map(\.name).contains("[socket] max_clients"))
        // The terms of features that are off are there, at zero.
        for name in [
            "[forward] outbox (3 files, with any sink)", "[[forward.postgres]] (1 each)", "[[forward.webhooks]] (2 each)",
            "[web] 2 × max_clients + 2 listening sockets + 1 netlink (with [web] listen)",
        ] {
            #expect(defaults.terms.first { $0.name == name }?.count == 0, "\(name)")
        }
        #expect(try budget("", eventLoops: 8).total == defaults.total + 18)
    }

    @Test func everyCappedListenerAndBackendAddsItsTerm() throws {
        let base = try budget("[pcsc]\nenabled = false\n")
        #expect(base.total == 38 + 64)
        #expect(try budget("[pcsc]\nenabled = false\n[socket]\nmax_clients = 100\n").total == 38 + 100)
        // The cap counts only with the listener on.
        #expect(try budget("[pcsc]\nenabled = false\n[metrics]\nmax_connections = 5\n").total == base.total)
        #expect(try budget("[pcsc]\nenabled = false\n[metrics]\nlisten = \"127.0.0.1:9466\"\nmax_connections = 5\n").total == base.total + 5)
        // The web listener: its max_clients twice (authenticated and not), its two listening
        // sockets (both loopbacks) and its netlink socket, only with [web] listen.
        #expect(try budget("[pcsc]\nenabled = false\n[web]\nmax_clients = 5\n").total == base.total)
        let web = try budget("[pcsc]\nenabled = false\n[web]\nlisten = \"127.0.0.1:8941\"\nmax_clients = 5\n")
        #expect(web.total == base.total + 2 * 5 + 2 + 1)
        #expect(web.description.contains("[web] 2 × max_clients + 2 listening sockets + 1 netlink (with [web] listen) 13"), "\(web)")
        // libnfc: its context, then 3 per device; a driver's every device (or an empty list) is a scan's 16.
        #expect(try budget("[pcsc]\nenabled = false\n[libnfc]\nenabled = true\ndevices = [\"pn532_uart:/dev/ttyUSB0\"]\n").total == base.total + 8 + 3)
        #expect(try budget("[pcsc]\nenabled = false\n[libnfc]\nenabled = true\ndevices = [\"pn53x_usb\"]\n").total == base.total + 8 + 48)
        #expect(try budget("[pcsc]\nenabled = false\n[libnfc]\nenabled = true\n").total == base.total + 8 + 48)
    }

    /// Forwarding: the outbox's database, -wal and -shm files once any sink is configured, one
    /// connection per PostgreSQL sink, two per webhook (one, and its replacement).
    @Test func forwardingSinksAddTheOutboxAndTheirConnections() throws {
        let folder = try VASConfigTests.Folder()
        try folder.secretFile("a.secret")
        try folder.secretFile("b.secret", contents: VASConfigTests.Folder.webhookSecret(1).text)
        let base = FileDescriptorBudget(try ConfigLoader.parse("[pcsc]\nenabled = false\n[forward]\nsync = \"full\"\n", file: folder.configFile), eventLoops: 2)
        #expect(base.total == 38 + 64)
        func sinks(webhooks: Int, postgres: Int) throws -> FileDescriptorBudget {
            var text = "[pcsc]\nenabled = false\n"
            for index in 0..<webhooks {
                text += "[[forward.webhooks]]\nname = \"w\(index)\"\nurl = \"https://w.example\"\nsecret_file = \"\(["a", "b"][index]).secret\"\n"
            }
            for index in 0..<postgres {
                text += "[[forward.postgres]]\nname = \"p\(index)\"\nhost = \"db\"\ndatabase = \"d\"\nuser = \"u\"\n"
            }
            return FileDescriptorBudget(try ConfigLoader.parse(text, file: folder.configFile), eventLoops: 2)
        }
        #expect(try sinks(webhooks: 0, postgres: 1).total == base.total + 3 + 1)
        #expect(try sinks(webhooks: 1, postgres: 0).total == base.total + 3 + 2)
        let both = try sinks(webhooks: 2, postgres: 3)
        #expect(both.total == base.total + 3 + 2 * 2 + 3)
        #expect(both.description.contains("[forward] outbox (3 files, with any sink) 3 + [[forward.postgres]] (1 each) 3 + [[forward.webhooks]] (2 each) 4"), "\(both)")
    }

    @Test func aBudgetTheSoftLimitCoversLeavesTheLimitAlone() throws {
        let defaults = try budget("")
        let setCalls = Mutex<[Int]>([])
        let limit = try Daemon.reserveFileDescriptors(for: defaults, file: "t.toml", limit: FileDescriptorLimit(soft: 1024, hard: 1024)) { soft in
            setCalls.withLock { $0.append(soft) }
            return nil
        }
        #expect(limit == FileDescriptorLimit(soft: 1024, hard: 1024))
        #expect(setCalls.withLock { $0 }.isEmpty)
    }

    @Test func aBudgetOverTheSoftButUnderTheHardLimitRaisesTheSoftLimitToTheBudget() throws {
        let defaults = try budget("")
        let setCalls = Mutex<[Int]>([])
        let limit = try Daemon.reserveFileDescriptors(for: defaults, file: "t.toml", limit: FileDescriptorLimit(soft: 64, hard: 4096)) { soft in
            setCalls.withLock { $0.append(soft) }
            return nil
        }
        #expect(setCalls.withLock { $0 } == [defaults.total])
        #expect(limit == FileDescriptorLimit(soft: defaults.total, hard: 4096))
        try Daemon.checkFileDescriptors(for: defaults, file: "t.toml", limit: FileDescriptorLimit(soft: 64, hard: 4096))
    }

    @Test func aBudgetOverTheHardLimitIsRefusedNamingTheFileTheKeysAndTheNumbers() throws {
        let large = try budget("[socket]\nmax_clients = 2000\n[metrics]\nlisten = \"127.0.0.1:9466\"\n")
        let limit = FileDescriptorLimit(soft: 1024, hard: 1024)
        for attempt in 0..<2 {
            do {
                if attempt == 0 {
                    _ = try Daemon.reserveFileDescriptors(for: large, file: "/etc/passtap/passtapd.toml", limit: limit) { _ in
                        Issue.record("the soft limit was set past the hard limit")
                        return nil
                    }
                } else {
                    try Daemon.checkFileDescriptors(for: large, file: "/etc/passtap/passtapd.toml", limit: limit)
                }
                Issue.record("a budget of \(large.total) was accepted under \(limit)")
            } catch {
                let text = error.description
                #expect(text.hasPrefix("/etc/passtap/passtapd.toml: "), "\(text)")
                #expect(text.contains("RLIMIT_NOFILE) 1024 (hard 1024)"), "\(text)")
                #expect(text.contains("budget \(large.total) = "), "\(text)")
                #expect(text.contains("[socket] max_clients 2000"), "\(text)")
                #expect(text.contains("[metrics] max_connections (with [metrics] listen) 8"), "\(text)")
                #expect(text.contains("LimitNOFILE="), "\(text)")
            }
        }
    }

    @Test func aSoftLimitThatCannotBeRaisedIsRefusedWithTheReason() throws {
        let defaults = try budget("")
        #expect {
            _ = try Daemon.reserveFileDescriptors(for: defaults, file: "t.toml", limit: FileDescriptorLimit(soft: 64, hard: 4096)) { _ in 1 }  // EPERM
        } throws: { error in
            "\(error)".contains("cannot raise the soft open-file limit 64 (hard 4096) to \(defaults.total): Operation not permitted")
        }
    }

    @Test func theProcessLimitIsReadAndItsSoftLimitSet() throws {
        let now = FileDescriptorLimit.current()
        #expect(now.soft > 0 && now.soft <= now.hard)
        #expect(FileDescriptorLimit.setSoft(now.soft) == nil)
        #expect(FileDescriptorLimit.current() == now)
        // Above the hard limit: refused by the kernel (unless unlimited).
        if now.hard < Int(Int32.max) { #expect(FileDescriptorLimit.setSoft(now.hard + 1) != nil) }
    }
}
