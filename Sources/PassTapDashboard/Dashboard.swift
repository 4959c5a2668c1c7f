/// The operator dashboard `passtapd` serves at `GET /` on `[web] listen`: every file of the page,
/// embedded in the binary, with the Content-Security-Policy they are served under.
///
/// The listener serves exactly these paths, `GET` and `HEAD` only; nothing comes from the disk or
/// from another origin.
public enum Dashboard {
    /// The policy every page answer carries: scripts, styles and images only from passtapd itself,
    /// connections only back to it (`/rpc`), no inline script or style, no framing.
    public static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// The file served at `path` (`/`, `/dashboard.js`...), if there is one: the files of
    /// `Sources/PassTapDashboard/Files/`, `index.html` at `/`, embedded at build time by
    /// `Plugins/DashboardEmbedPlugin` (`Dashboard.files`, in the Swift file it writes).
    public static func asset(at path: String) -> DashboardAsset? {
        files[path]
    }
}

/// One embedded file of the dashboard.
public struct DashboardAsset: Sendable, Hashable {
    /// The `Content-Type` it is served with.
    public let contentType: String
    /// Its bytes.
    public let body: [UInt8]

    /// A file of type `contentType`.
    public init(contentType: String, body: [UInt8]) {
        self.contentType = contentType
        self.body = body
    }
}
