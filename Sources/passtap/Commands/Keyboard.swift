import ArgumentParser
import ConfigKit
import ISO7816
import Foundation
import PassTapCore
import PassTapKeyboard
import PassTapProtocol

/// `passtap keyboard`: types each read into the focused window, as a keyboard would
/// (docs/keyboard.md). A client of the socket (role `read`), run as its own service: a system unit
/// with uinput, the user's unit with X11.
struct Keyboard: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Type each pass or tag read into the focused window.",
        discussion: """
            Settings: /etc/passtap/keyboard.toml (docs/keyboard.md). Reads are typed only with the characters \
            `allowed` lets through, at most `max_length`, and never after `max_age_ms`; a reconnect replays nothing. \
            With --check TEXT, prints the keys TEXT takes on the layout and what they type, and exits.
            """)

    @OptionGroup var options: GlobalOptions

    @Option(help: "The settings file.")
    var config = "/etc/passtap/keyboard.toml"

    @Option(help: ArgumentHelp("Overrides `output` (uinput or x11).", valueName: "output"))
    var output: String?

    @Option(help: ArgumentHelp("Overrides `layout` (uinput).", valueName: "layout"))
    var layout: String?

    @Option(help: ArgumentHelp("Print the keys TEXT takes on the layout and what they type back, then exit.", valueName: "text"))
    var check: String?

    @Option(help: "Stop after typing or refusing this many reads (for scripts and tests).")
    var count: Int?

    func run() async throws {
        var settings = try loadSettings()
        if let output {
            guard let chosen = KeyboardSettings.Output(rawValue: output) else { throw ValidationError("--output must be uinput or x11") }
            settings.output = chosen
        }
        if let layout { settings.layout = layout }
        if let check { return try checkLayout(check, settings) }
        let typist = try makeTypist(settings)
        do {
            try await serve(settings, typist)
        } catch {
            await typist.close()
            throw error
        }
        await typist.close()
    }

    private func loadSettings() throws -> KeyboardSettings {
        guard FileManager.default.fileExists(atPath: config) else {
            FileHandle.standardError.write(Data("passtap keyboard: \(config) does not exist; using the defaults (docs/keyboard.md)\n".utf8))
            return KeyboardSettings()
        }
        do {
            return try KeyboardSettings.load(path: config)
        } catch {
            FileHandle.standardError.write(Data("passtap keyboard: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
    }

    private func checkLayout(_ text: String, _ settings: KeyboardSettings) throws {
        do {
            let layout = try KeyboardLayout(layout: settings.layout, variant: settings.variant, composeLocale: settings.composeLocale)
            let strokes = try layout.strokes(for: text)
            print("layout: \(layout.name)")
            print("keys (XKB keycodes, modifiers+key): \(strokes.map(\.description).joined(separator: " "))")
            print("types: \(layout.decode(strokes))")
        } catch {
            FileHandle.standardError.write(Data("passtap keyboard: \(error)\n".utf8))
            throw ExitCode(65)  // EX_DATAERR
        }
    }

    private func makeTypist(_ settings: KeyboardSettings) throws -> KeyboardTypist {
        do {
            let output: any KeyboardOutput
            switch settings.output {
            case .uinput:
                output = try UInputKeyboard(
                    layout: KeyboardLayout(layout: settings.layout, variant: settings.variant, composeLocale: settings.composeLocale))
            case .x11:
                output = try X11Keyboard(display: settings.display, composeLocale: settings.composeLocale)
            }
            return KeyboardTypist(output: output, keyDelayMilliseconds: settings.keyDelayMilliseconds)
        } catch {
            FileHandle.standardError.write(Data("passtap keyboard: \(error)\n".utf8))
            throw ExitCode(69)  // EX_UNAVAILABLE
        }
    }

    /// Subscribes to `read.result` (live only: no `since`, so a reconnect replays nothing) and
    /// types each read as it comes; reconnects after a pause when passtapd goes away.
    private func serve(_ settings: KeyboardSettings, _ typist: KeyboardTypist) async throws {
        var chosen = options
        if chosen.socket == nil, ProcessInfo.processInfo.environment["PASSTAP_SOCKET"]?.isEmpty ?? true { chosen.socket = settings.socket }
        let options = chosen
        let handled = Counter()
        let limit = count
        let socketPath = options.socketPath
        let daemon: DaemonIdentity
        do {
            daemon = try DaemonIdentity.resolve(override: options.daemonUser)
        } catch {
            log("\(error)")
            throw ExitCode(64)  // EX_USAGE
        }
        // Not CLIRunner: a lost or refused connection is not the end here. The typist waits for
        // passtapd (a unit started before it, a restart) and subscribes afresh, live only.
        while true {
            do {
                try await RPCSession.run(socket: socketPath, daemon: daemon, timeout: nil) { session in
                    _ = try await session.call(.eventsSubscribe, EventsSubscribeParams(kinds: [.readResult]), as: EventsSubscribeResult.self)
                    log("subscribed to \(socketPath); typing with \(settings.output.rawValue)")
                    while let line = try await session.nextLine() {
                        switch settings.decide(line: line, now: Date()) {
                        case .ignore: continue
                        // The reason names the reader, from pcsc-lite: escaped like any text from outside.
                        case .refuse(let why): log("refused: \(UntrustedText.escaped(why))")
                        case .type(let text, let source):
                            do {
                                let layout = try await typist.type(text, suffix: settings.suffix)
                                log("typed a \(source.rawValue) read, \(text.unicodeScalars.count) characters, on the \(layout) layout")
                            } catch {
                                log("refused: \(error)")
                            }
                        }
                        if let limit, handled.increment() >= limit { return }
                    }
                    throw CLIError.closed
                }
                return
            } catch {
                let text = (error as? CLIError).map { UntrustedText.escaped($0.description) } ?? "\(error)"
                log("\(text); connecting again in 1 s; reads until then are dropped")
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    private func log(_ message: String) {
        FileHandle.standardError.write(Data("passtap keyboard: \(message)\n".utf8))
    }
}

/// A count shared with the session's closure.
private final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
