import ForwardSettings
import WebSettings
import ArgumentParser
import Foundation
import Logging
import PassTapCore
import PassTapDaemon
import SmartTapSettings
import VASSettings

/// `passtapd`: the PassTap daemon. All behaviour lives in `PassTapDaemon`; this only parses
/// arguments and sets up logging.
@main
struct PassTapd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passtapd",
        abstract: "The PassTap NFC reader daemon.",
        discussion: """
            Drives NFC readers through pcsc-lite and libnfc, runs a session on every tap, and publishes \
            events on a Unix socket (JSON-RPC 2.0, one object per line). Stops on SIGTERM/SIGINT; \
            reloads its config file on SIGHUP (a file that does not validate is refused). \
            Exit codes: 0 clean stop, 78 bad configuration (or a file descriptor budget over the open-file limit), 71 could not start.
            """ + "\n\nThe config file's keys (passtapd.toml(5); docs/configuration.md, \"Every key\"): "
            + ConfigLoader.keys.joined(separator: ", ") + ".",
        version: PassTapVersion.string
    )

    @Option(name: .long, help: "The config file to run with.")
    var config: String = ConfigLoader.defaultPath

    @Option(name: .customLong("check-config"), help: ArgumentHelp("Validate this config file, the directories on the way to its socket and the forwarding outbox's folder for this user, and exit.", valueName: "path"))
    var checkConfig: String?

    func run() async throws {
        if let path = checkConfig {
            do {
                let checked = try Daemon.loadConfiguration(path: path)
                try Daemon.checkSocketDirectories(for: checked, file: path)
                let outboxNote = try Daemon.checkOutboxFolder(for: checked, file: path, allowingMissingStateDirectory: true)
                let budget = FileDescriptorBudget(checked)
                try Daemon.checkFileDescriptors(for: budget, file: path)
                let vas = checked.vas.enabled
                    ? "VAS on: " + checked.vas.merchants.map { "\($0)" }.joined(separator: "; ")
                    : "VAS off"
                let web = checked.web.listen.map { "web on \($0) (tokens: \(checked.web.tokens.map(\.name).joined(separator: ", ")))" } ?? "web off"
                let sinks = checked.forward.sinks.map { "\($0.name) (\($0.type.rawValue))" }
                let forward = sinks.isEmpty ? "forwarding off" : "forwarding to " + sinks.joined(separator: ", ")
                print("\(path): OK (socket \(checked.socket.path), \(checked.aids.count) AID\(checked.aids.count == 1 ? "" : "s"), \(checked.readerOverrides.count) reader override\(checked.readerOverrides.count == 1 ? "" : "s"), \(vas), \(checked.smartTap), \(web), \(forward))")
                if let outboxNote { print("\(path): \(outboxNote)") }
                print("\(path): file descriptors: budget \(budget); open-file limit \(FileDescriptorLimit.current())")
                return
            } catch {
                FileHandle.standardError.write(Data("passtapd: \(error)\n".utf8))
                throw ExitCode(78)
            }
        }
        let configuration: Configuration
        do {
            configuration = try Daemon.loadConfiguration(path: config)
            try Daemon.checkOutboxFolder(for: configuration, file: config)
        } catch {
            FileHandle.standardError.write(Data("passtapd: refusing to start: \(error)\n".utf8))
            throw ExitCode(78)
        }
        // Every listener is capped; the limit must cover all of them at once.
        let budget = FileDescriptorBudget(configuration)
        let before = FileDescriptorLimit.current()
        let limit: FileDescriptorLimit
        do {
            limit = try Daemon.reserveFileDescriptors(for: budget, file: config, limit: before)
        } catch {
            FileHandle.standardError.write(Data("passtapd: refusing to start: \(error)\n".utf8))
            throw ExitCode(78)
        }
        // Before anything creates a file: the socket must never exist looser than configured.
        Daemon.restrictFileCreation(for: configuration)
        // The running configuration's one owner: a reload (SIGHUP) swaps it, and every logger
        // takes its level from it.
        let live = LiveConfiguration(configuration)
        // Under systemd, stderr is the journal's stream: lines carry their priority as `<N>`.
        let journal = JournalLogHandler.isJournalStream()
        LoggingSystem.bootstrap { label in
            // Every logged string is escaped: reader names and errors can carry what a card or a
            // reader chose, and must not drive the terminal or forge a log line.
            let output: any LogHandler = journal ? JournalLogHandler(label: label) : StreamLogHandler.standardError(label: label)
            return ReloadableLevelLogHandler(wrapping: EscapingLogHandler(wrapping: output), live: live)
        }
        let logger = Logger(label: "passtapd")
        if limit != before {
            logger.notice(
                "raised the soft open-file limit to the file descriptor budget",
                metadata: ["fd.limit_before": "\(before)", "fd.limit": "\(limit)", "fd.budget": "\(budget)"])
        } else {
            logger.info("the open-file limit covers the file descriptor budget", metadata: ["fd.limit": "\(limit)", "fd.budget": "\(budget)"])
        }
        do {
            try await Daemon(
                live: live, logger: logger, configPath: config, notifySocket: NotifySocket(), passedSockets: PassedSockets.takeFromEnvironment()
            ).run()
        } catch {
            // A refusal of the socket's path, directories or group names the file, line and key.
            logger.critical("passtapd stopped on an error", metadata: ["error": "\(Daemon.stopReason(error, file: config))"])
            throw ExitCode(71)
        }
    }
}
