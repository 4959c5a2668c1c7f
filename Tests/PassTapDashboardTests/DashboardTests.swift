import Foundation
import PassTapDashboard
import Testing

/// The embedded dashboard is exactly `Sources/PassTapDashboard/Files/` (DashboardEmbedPlugin writes
/// them as Swift at build time: docs/development.md, "The dashboard's files"), and nothing in it
/// needs what the Content-Security-Policy forbids.
@Suite(.timeLimit(.minutes(1))) struct DashboardTests {
    static let files = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PassTapDashboard/Files")

    static func names() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: files.path).sorted()
    }

    static func route(_ name: String) -> String { name == "index.html" ? "/" : "/" + name }

    @Test func everyFileIsEmbeddedAsItIsOnDisk() throws {
        let names = try Self.names()
        #expect(names.contains("index.html"))
        for name in names {
            let onDisk = try [UInt8](Data(contentsOf: Self.files.appendingPathComponent(name)))
            let asset = try #require(Dashboard.asset(at: Self.route(name)), "\(name) is not embedded")
            #expect(asset.body == onDisk, "\(name) differs from its embedded copy")
        }
    }

    @Test func eachFileHasItsContentType() throws {
        #expect(Dashboard.asset(at: "/")?.contentType == "text/html; charset=utf-8")
        #expect(Dashboard.asset(at: "/dashboard.js")?.contentType == "text/javascript; charset=utf-8")
        #expect(Dashboard.asset(at: "/passtap.js")?.contentType == "text/javascript; charset=utf-8")
        #expect(Dashboard.asset(at: "/dashboard.css")?.contentType == "text/css; charset=utf-8")
        #expect(Dashboard.asset(at: "/index.html") == nil)
        #expect(Dashboard.asset(at: "/../Package.swift") == nil)
    }

    /// The policy allows no inline script or style: the page must not need one.
    @Test func thePageHasNoInlineScriptStyleOrHandler() throws {
        let page = String(decoding: try #require(Dashboard.asset(at: "/")).body, as: UTF8.self)
        let lower = page.lowercased()
        #expect(!lower.contains("<style"))
        #expect(!lower.contains(" style="))
        #expect(!lower.contains("javascript:"))
        #expect(lower.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "an inline event handler")
        for script in lower.components(separatedBy: "<script").dropFirst() {
            let tag = script.prefix { $0 != ">" }
            #expect(tag.contains("src=\"/"), "a script without a same-origin src: <script\(tag)>")
            #expect(script.dropFirst(tag.count + 1).hasPrefix("</script>"), "a script with inline content")
        }
    }

    /// Every `src` and `href` of the page is one of the embedded files: nothing from another origin.
    @Test func everyReferenceIsAnEmbeddedFile() throws {
        let page = String(decoding: try #require(Dashboard.asset(at: "/")).body, as: UTF8.self)
        let pattern = try Regex(#"(?:src|href)="([^"]*)""#)
        let references = page.matches(of: pattern).map { String($0.output[1].substring ?? "") }
        #expect(references.count >= 3)
        for reference in references {
            #expect(Dashboard.asset(at: reference) != nil, "\(reference) is not served by passtapd")
        }
        let script = String(decoding: try #require(Dashboard.asset(at: "/dashboard.js")).body, as: UTF8.self)
        #expect(!script.contains("innerHTML"), "card data goes in with textContent only")
        // No URL but the SVG namespace's name (which is never fetched).
        let urls = script.replacingOccurrences(of: "\"http://www.w3.org/2000/svg\"", with: "")
        #expect(!urls.contains("http://") && !urls.contains("https://"))
        #expect(script.contains("from \"/passtap.js\""), "the page talks to passtapd through passtap.js")
    }

    /// Neither script keeps anything in web storage: the page keeps a non-extractable key in
    /// IndexedDB (passtap.js), never the token.
    @Test func noScriptUsesWebStorage() throws {
        for path in ["/dashboard.js", "/passtap.js"] {
            let script = String(decoding: try #require(Dashboard.asset(at: path)).body, as: UTF8.self)
            #expect(!script.contains("localStorage") && !script.contains("sessionStorage"), "\(path) uses web storage")
            #expect(!script.contains("innerHTML"), "\(path): text goes in with textContent only")
        }
    }
}
