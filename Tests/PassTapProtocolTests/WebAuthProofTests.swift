import ISO7816
import PassTapProtocol
import Testing

/// The `/rpc` handshake's proofs (``WebAuthProof``) against the known-answer vector of
/// `docs/web.md`, "The handshake", computed with Python's `hmac` module (an implementation
/// independent of swift-crypto); passtap.js and the bench's C client are checked against the same
/// vector.
struct WebAuthProofTests {
    static let secret = Array("dGVzdC10b2tlbi1mb3ItdGhlLWhhbmRzaGFrZS12ZWN0b3I".utf8)
    static let proofs = WebAuthProof(name: "till-1", clientNonce: Array(0..<32), serverNonce: Array(32..<64))

    @Test func bothProofsMatchTheKnownAnswerVector() throws {
        #expect(WebAuthProof.hex(Self.proofs.proof(.server, secret: Self.secret)) == "baa9fd6bbc22ed37f10db57bdd4b3513d12a1c098dbdf3880261275c125cf535")
        #expect(WebAuthProof.hex(Self.proofs.proof(.client, secret: Self.secret)) == "8f154bdc076da9e82548c18a313835a36e9031825bffb2df6b2ff21b3f35aff2")
    }

    /// One side's proof never serves as the other's, and a proof made for other nonces, another
    /// name or another secret does not verify.
    @Test func aProofVerifiesOnlyForItsSideNamesNoncesAndSecret() throws {
        let server = Self.proofs.proof(.server, secret: Self.secret)
        #expect(Self.proofs.verify(server, .server, secret: Self.secret))
        #expect(!Self.proofs.verify(server, .client, secret: Self.secret))
        #expect(!Self.proofs.verify(server, .server, secret: Self.secret.dropLast()))
        let otherNonce = WebAuthProof(name: "till-1", clientNonce: Array(0..<32), serverNonce: Array(33..<65))
        #expect(!otherNonce.verify(server, .server, secret: Self.secret))
        let otherName = WebAuthProof(name: "till-2", clientNonce: Array(0..<32), serverNonce: Array(32..<64))
        #expect(!otherName.verify(server, .server, secret: Self.secret))
        #expect(!Self.proofs.verify(Array(server.dropLast()), .server, secret: Self.secret))
    }

    @Test func noncesAndProofsAreExactly64HexDigits() {
        #expect(WebAuthProof.bytes(hex: String(repeating: "aB", count: 32)) == Array(repeating: 0xAB, count: 32))
        #expect(WebAuthProof.bytes(hex: String(repeating: "ab", count: 31)) == nil)
        #expect(WebAuthProof.bytes(hex: String(repeating: "ab", count: 33)) == nil)
        #expect(WebAuthProof.bytes(hex: String(repeating: "a ", count: 32)) == nil)
        #expect(WebAuthProof.bytes(hex: String(repeating: "zz", count: 32)) == nil)
        #expect(WebAuthProof.makeNonce().count == 32 && WebAuthProof.makeNonce() != WebAuthProof.makeNonce())
    }
}
