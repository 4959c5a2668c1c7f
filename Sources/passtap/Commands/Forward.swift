import ArgumentParser

/// `passtap forward status|retry|drop|secret`: the forwarding outbox of passtapd, through its
/// socket (the CLI never reads the outbox file), and a webhook secret, offline.
struct Forward: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and manage what passtapd forwards to webhooks and PostgreSQL.",
        discussion: """
            status, retry and drop ask passtapd over its socket (status needs the observe role; \
            retry and drop need manage: root and passtapd's own user unless [access] manage says \
            otherwise). secret works offline.
            """,
        subcommands: [ForwardStatus.self, ForwardRetry.self, ForwardDrop.self, ForwardSecret.self])
}
