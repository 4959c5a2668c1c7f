import PassTapCore
import PassTapProtocol
import PassTapServer
import PassTapTestNetwork
import Testing

@Suite(.timeLimit(.minutes(1))) struct ClientLimitTests {
    @Test func clientsOverMaxClientsGetAnErrorAndAreClosed() async throws {
        try await ServerHarness.with(configure: { $0.socket.maxClients = 2 }) { harness in
            try await LineClient.with(path: harness.path) { first in
                try await LineClient.with(path: harness.path) { second in
                    // Both are served: each gets an answer.
                    let firstAnswer = try await first.call(
                        #"{"jsonrpc":"2.0","id":1,"method":"status"}"#, expecting: StatusResult.self)
                    let secondAnswer = try await second.call(
                        #"{"jsonrpc":"2.0","id":1,"method":"status"}"#, expecting: StatusResult.self)
                    #expect(firstAnswer.id == .number(1))
                    #expect(secondAnswer.id == .number(1))
                    try await LineClient.with(path: harness.path) { third in
                        let refusal = try await third.read(JSONRPCResponse<JSONRPCNoResult>.self)
                        guard case .failure(let error) = refusal.outcome else {
                            Issue.record("the third client was served")
                            return
                        }
                        #expect(error.code == .tooManyClients)
                        #expect(error.message.contains("2"))
                        #expect(try await third.nextLine() == nil)
                    }
                    let still = try await first.call(#"{"jsonrpc":"2.0","id":2,"method":"status"}"#, expecting: StatusResult.self)
                    #expect(still.id == .number(2))
                }
            }
        }
    }
}
