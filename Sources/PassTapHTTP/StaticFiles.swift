public import NIOCore
public import NIOHTTP1

/// A route answering fixed bytes (the dashboard's files) to `GET` and `HEAD`, each with its
/// `Content-Type` and the same extra headers; other methods get 405. Nothing is read from disk.
public struct StaticFiles: Sendable {
    /// One file: its type and bytes.
    public struct File: Sendable {
        /// The `Content-Type` it is served with.
        public var contentType: String
        /// Its bytes.
        public var body: ByteBuffer

        /// A file of type `contentType` holding `body`.
        public init(contentType: String, body: ByteBuffer) {
            self.contentType = contentType
            self.body = body
        }
    }

    private let headers: [(String, String)]
    private let file: @Sendable (Substring) -> File?

    /// Serves `file(path)` for each path it knows, with `headers` added to every answer.
    /// `headers` must not allow every origin (`Access-Control-Allow-Origin: *`).
    public init(headers: [(String, String)], file: @escaping @Sendable (Substring) -> File?) {
        precondition(
            !headers.contains { $0.0.lowercased() == "access-control-allow-origin" && $0.1.filter { $0 != " " && $0 != "\t" } == "*" },
            "Access-Control-Allow-Origin: * would let any page read these answers")
        self.headers = headers
        self.file = file
    }

    /// The headers a page should be served with: `contentSecurityPolicy`, no MIME sniffing, no
    /// caching, no referrer, no framing.
    public static func pageHeaders(contentSecurityPolicy: String) -> [(String, String)] {
        [
            ("Content-Security-Policy", contentSecurityPolicy), ("X-Content-Type-Options", "nosniff"),
            ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"),
        ]
    }

    /// The answer to `request` if its path is one of the files (the query is ignored): the file to
    /// `GET`, the same headers without the body to `HEAD`, 405 to anything else; `nil` for any
    /// other path.
    public func response(to request: HTTPRequestHead) -> HTTPResponse? {
        guard let found = file(request.path) else { return nil }
        guard request.method == .GET || request.method == .HEAD else {
            return .text(.methodNotAllowed, "method not allowed: only GET and HEAD are served here\n", headers: [("Allow", "GET, HEAD")])
        }
        var all = HTTPHeaders([("Content-Type", found.contentType)])
        all.add(contentsOf: headers)
        return HTTPResponse(status: .ok, headers: all, body: found.body, omitsBody: request.method == .HEAD)
    }
}
