import ForwardSettings
import Foundation
import PassTapCore

#if canImport(Glibc)
import Glibc
import PassTapTestNetwork
#endif

/// The real HTTPS webhook receiver (`scripts/rig/webhook_receiver.py`) on a free loopback port,
/// with a throwaway CA (``caFile``, for `ca_file`) and a secret of its own (``secretFile``, mode
/// 0600, for `secret_file`). It checks every request's Standard Webhooks signature (401 if bad),
/// records the events it accepts, and is switched at run time through its control socket.
/// Its files are in its folder: `ca.pem`, `webhook.secret`, `events.jsonl`, `attempts.jsonl`,
/// `control.sock`, `receiver.log`. It is stopped by ``stop()``, or when it is released.
final class WebhookReceiver {
    /// One event it accepted (answered 200), in the order it accepted them.
    struct Event: Decodable, Equatable {
        /// `webhook-id`.
        let id: String
        /// `webhook-timestamp`, as sent.
        let timestamp: String
        /// `webhook-signature`, as sent (valid: it was checked).
        let signature: String
        /// The body, as UTF-8 text.
        let body: String
    }

    /// One request it received, whatever it answered.
    struct Attempt: Decodable {
        let id: String?
        let timestamp: String?
        /// What it answered (401: the signature or timestamp was bad).
        let status: Int
        /// Whether the signature and timestamp were good.
        let valid: Bool
        /// The request's headers, names in lower case.
        let headers: [String: String]
        let body: String
    }

    let directory: URL
    let secret: WebhookSecret
    /// Its port on 127.0.0.1 (the same after ``down()`` and ``up()``).
    let port: Int
    private let process: Spawned
    private let ownsDirectory: Bool
    private var stopped = false

    /// `https://127.0.0.1:PORT/` + `path`.
    func url(_ path: String = "hook") -> URL { URL(string: "https://127.0.0.1:\(port)/\(path)")! }
    /// The throwaway CA's certificate (PEM): the sink's `ca_file`.
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    /// The secret's `whsec_...` file, mode 0600: the sink's `secret_file`.
    var secretFile: String { directory.appendingPathComponent("webhook.secret").path }
    private var socket: String { directory.appendingPathComponent("control.sock").path }

    /// Starts a receiver with `secret` (a random 32-byte one by default) in `directory` (a rig's
    /// folder) or a new temporary folder of its own; returns once it listens.
    init(secret: WebhookSecret = WebhookSecret(key: (0..<32).map { _ in UInt8.random(in: 0...255) }), in directory: URL? = nil, arguments: [String] = []) throws {
        ownsDirectory = directory == nil
        let directory = directory ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("passtap-webhook-\(UUID().uuidString.prefix(8))")
        self.directory = directory
        self.secret = secret
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let secretFile = directory.appendingPathComponent("webhook.secret").path
        guard FileManager.default.createFile(atPath: secretFile, contents: Data((secret.text + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw Rig.Failure(description: "cannot write \(secretFile)")
        }
        let log = directory.appendingPathComponent("receiver.log").path
        let ready = directory.appendingPathComponent("ready")
        try? FileManager.default.removeItem(at: ready)
        let process = try Spawned.start(
            "/usr/bin/env",
            ["python3", Rig.repository.appendingPathComponent("scripts/rig/webhook_receiver.py").path, "--dir", directory.path, "--secret-file", secretFile]
                + arguments, stdout: log, stderr: log)
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        var port: Int?
        while port == nil {
            if let data = try? Data(contentsOf: ready), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                port = object["port"] as? Int
            }
            guard port != nil || (Date() < deadline && !process.hasExited()) else {
                process.signal(SIGKILL)
                _ = process.wait(seconds: 5)
                throw Rig.Failure(description: "the webhook receiver did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            }
            if port == nil { usleep(20_000) }
        }
        self.port = port!
    }

    deinit { stop() }

    /// Sends a line command (`--help` of the script lists them) and returns its JSON answer,
    /// which must be `ok`.
    @discardableResult
    func command(_ line: String) throws -> [String: Any] {
        try LineClient.command(line, at: socket, peer: "the webhook receiver")
    }

    /// Answers every valid request `status` (200: accepted), with `Retry-After: retryAfter`.
    func answer(_ status: Int, retryAfter: String? = nil) throws {
        try command("answer \(status)" + (retryAfter.map { " " + $0 } ?? ""))
    }

    /// Answers 400 to the event `id` (or, `nil`, to every event) until ``reset()``.
    func refuse(_ id: String?) throws { try command("refuse \(id ?? "all")") }
    /// Waits `milliseconds` before each answer.
    func delay(milliseconds: Int) throws { try command("delay \(milliseconds)") }
    /// Stops listening and closes open connections: connections are refused.
    func down() throws { try command("down") }
    /// Listens again, on the same port.
    func up() throws { try command("up") }
    /// Back to 200, no refusals, no delay.
    func reset() throws { try command("reset") }
    /// Its counts: `attempts`, `accepted`, `bad_signatures`, `bad_timestamps`.
    func stats() throws -> [String: Any] { try command("stats") }

    /// The events accepted so far, in order.
    func events() throws -> [Event] { try lines("events.jsonl") }
    /// Every request so far, in order.
    func attempts() throws -> [Attempt] { try lines("attempts.jsonl") }

    /// The accepted events once there are at least `count` (each is recorded before its 200 is
    /// sent); throws naming what arrived if `timeout` seconds pass first.
    @discardableResult
    func waitForEvents(_ count: Int, timeout: Double = 30) throws -> [Event] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let events = try self.events()
            if events.count >= count { return events }
            guard Date() < deadline, !process.hasExited() else {
                throw Rig.Failure(description: "waited \(timeout) s for \(count) webhook events; \(events.count) arrived: \(events.map(\.id))")
            }
            usleep(20_000)
        }
    }

    private func lines<Line: Decodable>(_ name: String) throws -> [Line] {
        let url = directory.appendingPathComponent(name)
        guard let data = try? Data(contentsOf: url) else { return [] }
        // A line being written has no newline yet: only complete lines count.
        let newline = UInt8(ascii: "\n")
        let end = data.lastIndex(of: newline).map { $0 + 1 } ?? data.startIndex
        return try data[..<end].split(separator: newline).map { try JSONDecoder().decode(Line.self, from: Data($0)) }
    }

    /// Its log so far, for failure messages.
    var log: String {
        (try? String(contentsOf: directory.appendingPathComponent("receiver.log"), encoding: .utf8)) ?? ""
    }

    /// Stops the receiver (and removes its folder if it is its own); again does nothing.
    func stop() {
        guard !stopped else { return }
        stopped = true
        process.signal(SIGTERM)
        _ = process.wait(seconds: 10)
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }
}
