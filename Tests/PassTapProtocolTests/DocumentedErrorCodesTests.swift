import Foundation
import PassTapProtocol
import Testing

/// Every error code PassTap sends has a row, with its reason, in the docs' tables: the socket's
/// in `docs/socket-api.md` ("Error codes"), the web listener's handshake codes in `docs/web.md`.
@Suite(.timeLimit(.minutes(1))) struct DocumentedErrorCodesTests {
    @Test func everyCodeHasItsRowInTheDocs() throws {
        let docs = try ["socket-api.md", "web.md"].map { try DocumentedMessageLimitTests.document($0) }.joined(separator: "\n")
        let rows = docs.split(separator: "\n").filter { $0.hasPrefix("| -32") }
        for code in JSONRPCErrorCode.all {
            #expect(!code.reason.hasPrefix("error_"), "\(code.rawValue) has no reason of its own")
            let row = rows.first { $0.hasPrefix("| \(code.rawValue) ") }
            #expect(row?.contains("`\(code.reason)`") == true, "no row `| \(code.rawValue) | `\(code.reason)`` in docs/socket-api.md or docs/web.md")
        }
    }

    @Test func theCodesAreDistinct() {
        #expect(Set(JSONRPCErrorCode.all.map(\.rawValue)).count == JSONRPCErrorCode.all.count)
        #expect(Set(JSONRPCErrorCode.all.map(\.reason)).count == JSONRPCErrorCode.all.count)
    }
}
