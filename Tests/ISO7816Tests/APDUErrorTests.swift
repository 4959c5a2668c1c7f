import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct APDUErrorTests {
    @Test(arguments: [
        (APDUError.commandTooShort(length: 3), "at least 4 bytes (CLA INS P1 P2), got 3"),
        (.inconsistentLength("Lc=5 but 1 bytes follow"), "Lc=5 but 1 bytes follow"),
        (.tooLong(length: 70_000), "70000 bytes is over the 65548-byte limit"),
        (.responseTooShort(length: 1), "at least the 2 status bytes, got 1"),
        (.invalidAIDLength(4), "5 to 16 bytes, got 4"),
    ])
    func errorsSayWhatWasWrong(_ error: APDUError, _ fragment: String) {
        #expect(error.description.contains(fragment))
    }
}
