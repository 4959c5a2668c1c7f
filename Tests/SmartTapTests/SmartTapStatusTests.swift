import SmartTap
import Testing

@Suite struct SmartTapStatusTests {
    /// The names are the socket contract (docs/socket-api.md, "The `smarttap` member of
    /// `read.result`").
    @Test func statusNamesAreTheWireNames() {
        #expect(SmartTapStatus.allCases.map(\.rawValue) == [
            "success", "no_pass", "user_must_choose", "retry", "refused", "malformed_response", "bad_mac",
        ])
    }
}
