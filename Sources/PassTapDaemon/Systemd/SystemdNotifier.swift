import Synchronization

/// Everything passtapd tells systemd goes through this one object (sd_notify(3) over
/// ``NotifySocket``), so the order systemd sees holds whichever part of the daemon speaks:
/// - ``ready()``: `READY=1` once, when start-up is over, then `STATUS=` with the daemon's line;
/// - ``reloading()`` and ``reloaded()``: `RELOADING=1` when a reload begins, and `READY=1` then the
///   daemon's `STATUS=` line again when it ends, whatever its outcome (systemd 252's `Type=notify`
///   reload protocol; the journal and `config.reloaded`/`config.rejected` say what it did);
/// - ``watchdog()``: `WATCHDOG=1`; ``refreshStatus()``: `STATUS=` when the line changed;
/// - ``stopping()``: `STOPPING=1`, after which nothing more is sent: no `READY=1` once shutdown
///   began, from start-up or from a reload.
///
/// A reload before start-up is over sends nothing: the `READY=1` of ``ready()`` is still to come.
/// The `STATUS=` line (``status``) is world-readable (`systemctl status`): it names no card and no
/// reader.
package final class SystemdNotifier: Sendable {
    private struct State {
        var ready = false
        var stopping = false
        /// The last `STATUS=` text sent.
        var status: String?
    }

    private let socket: NotifySocket
    private let status: @Sendable () -> String
    private let state = Mutex(State())

    /// A notifier writing to `socket`; `status` is the daemon's `STATUS=` line now.
    package init(socket: NotifySocket, status: @escaping @Sendable () -> String) {
        self.socket = socket
        self.status = status
    }

    /// Start-up is over (the socket listens, the backends have started): `READY=1`, then the
    /// status line. Nothing once shutdown began.
    package func ready() {
        let line = status()
        state.withLock { state in
            guard !state.stopping, !state.ready else { return }
            state.ready = true
            socket.send(.ready)
            send(status: line, in: &state)
        }
    }

    /// A reload begins: `RELOADING=1` (only once ready, and not while stopping).
    package func reloading() {
        state.withLock { state in
            guard state.ready, !state.stopping else { return }
            socket.send(.reloading)
        }
    }

    /// A reload ended, applied or refused: `READY=1`, then the daemon's status line (only once
    /// ready, and not while stopping).
    package func reloaded() {
        let line = status()
        state.withLock { state in
            guard state.ready, !state.stopping else { return }
            socket.send(.ready)
            send(status: line, in: &state)
        }
    }

    /// The health check passed: `WATCHDOG=1` (not while stopping).
    package func watchdog() {
        state.withLock { state in
            guard !state.stopping else { return }
            socket.send(.watchdog)
        }
    }

    /// `STATUS=` with the daemon's line, if it changed since the last one sent (only once ready,
    /// and not while stopping).
    package func refreshStatus() {
        let line = status()
        state.withLock { state in
            guard state.ready, !state.stopping, state.status != line else { return }
            send(status: line, in: &state)
        }
    }

    /// Shutdown began: `STOPPING=1`, once; nothing is sent after it.
    package func stopping() {
        state.withLock { state in
            guard !state.stopping else { return }
            state.stopping = true
            socket.send(.stopping)
        }
    }

    private func send(status line: String, in state: inout State) {
        state.status = line
        socket.send(.status(line))
    }
}
