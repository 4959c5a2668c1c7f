import WebSettings
import PassTapCore
import Testing

/// What `passtap web-token` writes and what a token file must hold.
@Suite struct WebTokenFileTests {
    @Test func aGeneratedSecretIsFortyThreeBase64URLCharactersThatATokenFileAccepts() throws {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var seen = Set<String>()
        for _ in 0..<64 {
            let secret = WebTokenFile.generate()
            #expect(secret.count == 43 && secret.allSatisfy(alphabet.contains), "\(secret)")
            let read = try WebTokenFile.secret(contents: Array((secret + "\n").utf8), path: "t.token")
            #expect(read.bytes == Array(secret.utf8))
            seen.insert(secret)
        }
        // 256 random bits each: no two alike.
        #expect(seen.count == 64)
    }

    @Test func theSecretNeverAppearsInItsDescription() throws {
        let text = WebTokenFile.generate()
        let secret = try WebTokenFile.secret(contents: Array(text.utf8), path: "t.token")
        #expect("\(secret)" == "<secret>" && String(reflecting: secret) == "<secret>")
    }

    @Test func aMalformedFileIsRefusedNamingThePathNeverTheContents() {
        let contents = "short-secret-that-is-not-enough"
        do {
            _ = try WebTokenFile.secret(contents: Array(contents.utf8), path: "/etc/passtap/web/till-1.token")
            Issue.record("a 31-character secret was accepted")
        } catch {
            #expect(error.code == .malformed)
            #expect(error.description == "token file /etc/passtap/web/till-1.token: expected \(WebTokenFile.expectation); only 31 characters long")
            #expect(!error.description.contains(contents))
        }
    }
}
