import NDEF
import Testing

@Suite struct NDEFTypeNameFormatTests {
    /// NDEF 1.0 §3.2.6 numbers TNF 0 to 6; 7 is reserved.
    @Test func theSevenFormatsAreTheSpecsNumbers() {
        #expect(NDEFTypeNameFormat.allCases.map(\.rawValue) == Array(0...6))
        #expect(NDEFTypeNameFormat(rawValue: 7) == nil)
    }
}
