import ISO7816

/// Why a session stopped before success, as the outcome reports it.
struct SmartTapFailure: Error, Sendable {
    var status: SmartTapStatus
    var problem: String
    var sw: StatusWord?

    init(_ status: SmartTapStatus, _ problem: String, sw: StatusWord? = nil) {
        self.status = status
        self.problem = problem
        self.sw = sw
    }
}
