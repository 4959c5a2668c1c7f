package import ConfigKit
public import PassTapCore
import MetricsSettings
package import Wallets

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `[web]`: the browser listener's table and its `[[web.tokens]]` (docs/configuration.md,
/// "Browser POS and the dashboard").
package enum WebSection: ConfigSection {
    /// The most `[[web.tokens]]` one file may list.
    static let maximumWebTokens = 64

    package static let table = "web"
    package static let opensFiles = true
    package static let keys = [
        "web.listen", "web.max_clients", "web.max_clients_per_token", "web.max_pending_per_uid",
        "web.vas_reads_per_token", "web.idle_timeout_ms", "web.auth_timeout_ms",
        "web.auth_failures_per_origin", "web.auth_failures_total",
        "web.tokens.name", "web.tokens.token_file", "web.tokens.roles", "web.tokens.origins",
    ]
    /// The listener is bound once, at start; the rest a reload puts in force.
    package static let settings: [ConfigSetting] = [
        .restartOnly("web.listen", \.web.listen),
        .restartOnly("web.max_clients", \.web.maxClients),
        // The token files are read again on every reload: a new secret in the same file is a change.
        ConfigSetting("web.tokens", \.web.tokens),
        ConfigSetting("web.max_clients_per_token", \.web.maxClientsPerToken),
        ConfigSetting("web.max_pending_per_uid", \.web.maxPendingPerUID),
        ConfigSetting("web.vas_reads_per_token", \.web.vasReadsPerToken),
        ConfigSetting("web.idle_timeout_ms", \.web.idleTimeoutMilliseconds),
        ConfigSetting("web.auth_timeout_ms", \.web.authTimeoutMilliseconds),
        ConfigSetting("web.auth_failures_per_origin", \.web.authFailuresPerOrigin),
        ConfigSetting("web.auth_failures_total", \.web.authFailuresTotal),
    ]

    /// Reads `[web]` (after `[metrics]`, whose port it must not share).
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        configuration.web = try readWeb(&table, keyPolicy: context.keyPolicy)
        if let listen = configuration.web.listen, let metrics = configuration.metrics.listen, listen.port == metrics.port {
            throw table.error("listen", "expected a port other than [metrics] listen's (\(metrics)), found \(listen): the two listeners cannot share a port")
        }
    }

    /// `[web]` and its `[[web.tokens]]`, with every token file read and checked with `keyPolicy`
    /// (the merchant key file rules: a socket client must not read a web token either).
    static func readWeb(_ table: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.Web {
        var web = Configuration.Web()
        if let listen = try table.string("listen") {
            guard let address = ListenAddress.parse(listen) else {
                throw table.error("listen", "expected \(ListenAddress.expectation), found \"\(listen)\"")
            }
            guard address.isLoopback else {
                throw table.error(
                    "listen",
                    "expected a loopback address (127.0.0.1:PORT, [::1]:PORT or localhost:PORT), found \"\(listen)\": the web listener serves the browser on this machine only; view it from elsewhere through an SSH tunnel (docs/web.md)")
            }
            web.listen = address
        }
        web.maxClients = try table.integer("max_clients", in: 1...1024) ?? web.maxClients
        web.maxClientsPerToken = try table.integer("max_clients_per_token", in: 1...1024) ?? web.maxClientsPerToken
        web.maxPendingPerUID = try table.integer("max_pending_per_uid", in: 1...1024) ?? web.maxPendingPerUID
        web.vasReadsPerToken = try table.integer("vas_reads_per_token", in: 1...64) ?? web.vasReadsPerToken
        web.idleTimeoutMilliseconds = try table.integer("idle_timeout_ms", in: 1_000...86_400_000) ?? web.idleTimeoutMilliseconds
        web.authTimeoutMilliseconds = try table.integer("auth_timeout_ms", in: 100...60_000) ?? web.authTimeoutMilliseconds
        web.authFailuresPerOrigin = try table.integer("auth_failures_per_origin", in: 1...10_000) ?? web.authFailuresPerOrigin
        web.authFailuresTotal = try table.integer("auth_failures_total", in: 1...100_000) ?? web.authFailuresTotal
        // A misspelt key is reported before any token file is opened.
        table.declare("tokens")
        try table.rejectUnknownKeys()
        web.tokens = try webTokens(of: &table, keyPolicy: keyPolicy)
        return web
    }

    private static func webTokens(of table: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> [Configuration.WebToken] {
        var tokens: [Configuration.WebToken] = []
        for var entry in try table.arrayOfTables("tokens", maximum: maximumWebTokens, what: "tokens") {
            let token = try webToken(&entry, keyPolicy: keyPolicy)
            if tokens.contains(where: { $0.name == token.name }) {
                throw entry.error("name", "token \"\(token.name)\" is configured twice: give each token its own name")
            }
            if let twin = tokens.first(where: { $0.secret == token.secret }) {
                throw entry.error(
                    "token_file",
                    "token \"\(token.name)\" (\(token.tokenFile)) has the same secret as token \"\(twin.name)\" (\(twin.tokenFile)): give each its own secret (passtap web-token makes one)")
            }
            tokens.append(token)
        }
        return tokens
    }

    private static func webToken(_ entry: inout TableReader, keyPolicy: MerchantKeyFilePolicy) throws(ConfigurationError) -> Configuration.WebToken {
        let given = try entry.string("name")
        entry.declare("token_file", "roles", "origins")
        try entry.rejectUnknownKeys(context: given.map { "token \($0): " } ?? "")
        guard let name = given else {
            throw entry.error("name", "every [[web.tokens]] needs a name (such as \"till-1\"): logs and metrics call the token by it")
        }
        guard Configuration.WebToken.isValidName(name) else {
            throw entry.error("name", "expected \(Configuration.WebToken.nameExpectation), found \"\(name)\"")
        }
        let roles = try webRoles(of: &entry, token: name)
        let origins = try webOrigins(of: &entry, token: name)
        guard let path = try entry.string("token_file") else {
            throw entry.error("token_file", "token \(name): expected the path of its secret (passtap web-token --name \(name) --out DIR writes one)")
        }
        let full = ConfigPaths.resolve(path, relativeTo: entry.file)
        let secret: WebTokenSecret
        do {
            secret = try WebTokenFile.read(path: full, policy: keyPolicy)
        } catch {
            throw entry.error("token_file", "token \(name): \(error.description)")
        }
        return Configuration.WebToken(name: name, tokenFile: full, secret: secret, roles: roles, origins: origins)
    }

    private static func webRoles(of entry: inout TableReader, token name: String) throws(ConfigurationError) -> Set<AccessRole> {
        guard let texts = try entry.strings("roles") else {
            throw entry.error("roles", "token \(name): expected roles = [\"observe\"] or [\"observe\", \"read\"]: what the token may do")
        }
        guard !texts.isEmpty else {
            throw entry.error("roles", "token \(name): expected at least one role, \"observe\" or \"read\"; a token without one can do nothing")
        }
        var roles = Set<AccessRole>()
        for (offset, text) in texts.enumerated() {
            if text == AccessRole.transmit.rawValue {
                throw entry.error(
                    "roles", element: offset,
                    "token \(name): \"transmit\" is never given to a web token: raw APDUs can read payment card data, and card.transmit stays on the Unix socket; use \"observe\" or \"read\"")
            }
            if text == AccessRole.manage.rawValue {
                throw entry.error(
                    "roles", element: offset,
                    "token \(name): \"manage\" is never given to a web token: forward.retry and forward.drop change what leaves the till, and stay on the Unix socket; use \"observe\" or \"read\"")
            }
            guard let role = AccessRole(rawValue: text) else {
                throw entry.error("roles", element: offset, "token \(name): expected \"observe\" or \"read\", found \"\(text)\"")
            }
            guard roles.insert(role).inserted else {
                throw entry.error("roles", element: offset, "token \(name): \"\(text)\" is listed twice")
            }
        }
        return roles
    }

    private static func webOrigins(of entry: inout TableReader, token name: String) throws(ConfigurationError) -> [String] {
        guard let texts = try entry.strings("origins") else { return [] }
        var origins: [String] = []
        for (offset, text) in texts.enumerated() {
            let origin: String
            switch WebOrigin.normalized(text) {
            case .success(let value): origin = value
            case .failure(let problem): throw entry.error("origins", element: offset, "token \(name): \(problem.message)")
            }
            guard !origins.contains(origin) else {
                throw entry.error("origins", element: offset, "token \(name): \"\(origin)\" is listed twice")
            }
            origins.append(origin)
        }
        return origins
    }
}
