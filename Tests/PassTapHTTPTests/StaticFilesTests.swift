import NIOCore
import NIOHTTP1
import PassTapHTTP
import PassTapTestNetwork
import PassTapTestSupport
import Testing

/// `StaticFiles` served by a real `HTTPListener`.
@Suite(.timeLimit(.minutes(1))) struct StaticFilesTests {
    static let policy = "default-src 'none'; script-src 'self'"

    static let routes: HTTPRoutes = {
        let files = StaticFiles(headers: StaticFiles.pageHeaders(contentSecurityPolicy: policy)) { path in
            path == "/" ? StaticFiles.File(contentType: "text/html; charset=utf-8", body: ByteBuffer(string: "<!doctype html><p>hi</p>\n")) : nil
        }
        return HTTPRoutes { files.response(to: $0) ?? .text(.notFound, "not found\n") }
    }()

    @Test func aFileIsServedWithItsTypeAndThePageHeaders() async throws {
        try await withListener(Self.routes) { address in
            let port = try #require(address.port)
            let page = try await RawHTTP.answer("GET /?tab=1 HTTP/1.1\r\nHost: localhost:\(port)\r\nOrigin: http://pos.example\r\n\r\n", with: address)
            #expect(page.statusLine == "HTTP/1.1 200 OK")
            #expect(page.body == "<!doctype html><p>hi</p>\n")
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-length"] == "\(page.body.utf8.count)")
            #expect(page.headers["content-security-policy"] == Self.policy)
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.headers["cache-control"] == "no-store")
            #expect(page.headers["referrer-policy"] == "no-referrer")
            #expect(page.headers["x-frame-options"] == "DENY")
            #expect(page.headers["connection"] == "close")
            #expect(page.headers["access-control-allow-origin"] == nil)
        }
    }

    @Test func headGetsTheHeadersWithoutTheBodyAndOtherMethods405() async throws {
        try await withListener(Self.routes) { address in
            let port = try #require(address.port)
            let head = try await RawHTTP.answer("HEAD / HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
            #expect(head.statusLine == "HTTP/1.1 200 OK")
            #expect(head.body.isEmpty)
            #expect(head.headers["content-length"] == "25")
            #expect(head.headers["content-security-policy"] == Self.policy)
            let post = try await RawHTTP.answer("POST / HTTP/1.1\r\nHost: localhost:\(port)\r\nContent-Length: 2\r\n\r\nhi", with: address)
            #expect(post.statusLine == "HTTP/1.1 405 Method Not Allowed")
            #expect(post.headers["allow"] == "GET, HEAD")
            let missing = try await RawHTTP.answer("GET /app.js HTTP/1.1\r\nHost: localhost:\(port)\r\n\r\n", with: address)
            #expect(missing.statusLine == "HTTP/1.1 404 Not Found")
            let rebound = try await RawHTTP.answer("GET / HTTP/1.1\r\nHost: evil.example:\(port)\r\n\r\n", with: address)
            #expect(rebound.statusLine == "HTTP/1.1 421 Misdirected Request")
        }
    }
}
