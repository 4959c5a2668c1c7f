import ISO7816
import PassTapCore
import PassTapServer
import Testing

@Suite(.timeLimit(.minutes(1))) struct SocketServerConfigurationTests {
    @Test func theDaemonConfigurationsSocketAndEventsSettingsAreTaken() {
        var configuration = Configuration()
        configuration.socket.path = "/tmp/x/passtapd.sock"
        configuration.socket.mode = 0o640
        configuration.socket.group = "pos"
        configuration.socket.maxClients = 3
        configuration.socket.allowTransmit = true
        configuration.events.clientQueue = 17
        let server = SocketServerConfiguration(configuration)
        #expect(server == SocketServerConfiguration(
            path: "/tmp/x/passtapd.sock", mode: 0o640, group: "pos", maxClients: 3, allowTransmit: true, clientQueue: 17))
    }

    @Test func theDefaultsMatchTheShippedConfiguration() {
        let defaults = Configuration()
        let server = SocketServerConfiguration(path: defaults.socket.path)
        #expect(server == SocketServerConfiguration(defaults))
    }

    @Test func eachStartGetsItsOwnInstanceID() {
        let first = DaemonInfo.startingNow(version: "1")
        let second = DaemonInfo.startingNow(version: "1")
        #expect(first.instance != second.instance)
        #expect(first.uptimeSeconds >= 0)
    }
}
