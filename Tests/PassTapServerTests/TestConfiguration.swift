import PassTapCore
import VAS
import VASSettings

@testable import PassTapServer

/// A test server's settings: the daemon's own ``Configuration`` (the server reads `[socket]`,
/// `[events]`, `[access]` and the `[vas]` merchants from it). Older tests, kept unchanged, still
/// call it by the name of the server's own copy, which is gone.
typealias SocketServerConfiguration = Configuration

extension Configuration {
    /// The shipped defaults, with the socket at `path`.
    init(path: String) {
        self.init()
        socket.path = path
    }

    /// `[vas]` on, with URL-only merchants of these pass type ids: what `vas.read` may name.
    /// The tests' ids are valid: one that is not traps.
    mutating func enableVAS(merchants: [String]) {
        vas.enabled = true
        vas.merchants = merchants.map {
            try! VASMerchant(
                passTypeIdentifier: try PassTypeIdentifier($0), url: "https://example.com/join", filter: nil, keys: [], keyPaths: [])
        }
    }
}

extension SocketServer {
    /// What a reload does to a running server: puts `new` in force in the server's
    /// ``LiveConfiguration``, then tells the server (as `ConfigReloader` does).
    func apply(_ new: Configuration) {
        let old = live.replace(with: new)
        configurationChanged(from: old, to: new)
    }
}
