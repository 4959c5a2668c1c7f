public import NIOCore
public import NIOHTTP1

/// One answer of an ``HTTPListener``'s routes. The listener adds `Content-Length` and
/// `Connection: close`, writes it in the request's HTTP version and closes the connection: there
/// is one request per connection.
public struct HTTPResponse: Sendable {
    /// The status line's code.
    public var status: HTTPResponseStatus
    /// Every header but `Content-Length` and `Connection`, which the listener sets.
    public var headers: HTTPHeaders
    /// The body; its length is the `Content-Length`.
    public var body: ByteBuffer
    /// Whether the body is left out, its `Content-Length` still sent (the answer to `HEAD`).
    public var omitsBody: Bool

    /// An answer with `status`, `headers` and `body`; `omitsBody` for a `HEAD` request.
    public init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: ByteBuffer = ByteBuffer(), omitsBody: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.omitsBody = omitsBody
    }

    /// The Content-Type of ``text(_:_:headers:)``.
    public static let plainText = "text/plain; charset=utf-8"

    /// A short `text/plain` answer: `text` says what happened and what to do.
    public static func text(_ status: HTTPResponseStatus, _ text: String, headers: [(String, String)] = []) -> HTTPResponse {
        var all = HTTPHeaders([("Content-Type", plainText)])
        all.add(contentsOf: headers)
        return HTTPResponse(status: status, headers: all, body: ByteBuffer(string: text))
    }
}
