import PassTapServer
import Testing

@Suite(.timeLimit(.minutes(1))) struct DaemonInfoTests {
    @Test func eachStartGetsItsOwnInstanceID() {
        let first = DaemonInfo.startingNow(version: "1")
        let second = DaemonInfo.startingNow(version: "1")
        #expect(first.instance != second.instance)
        #expect(first.uptimeSeconds >= 0)
    }
}
