extension ListenAddress {
    /// Whether the host is a loopback one: an IPv4 address in 127.0.0.0/8, `::1` or `localhost`
    /// (only the machine itself can connect). `[web] listen` must be.
    public var isLoopback: Bool {
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
    }
}
