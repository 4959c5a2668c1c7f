/// The readers PassTap gives feedback on, and the bytes each takes (docs/feedback.md, "Readers").
/// A reader is recognised from its PC/SC name (``init(readerName:)``); `[[feedback.readers]]`
/// names the model of one whose name says nothing.
///
/// The bytes come from ACS's API documents (ACR122U API 2.04, section 6.2 "Bi-color LED and
/// Buzzer Control"; ACR1252U reference manual, "Peripherals Control"). Not yet checked on a real
/// reader: docs/feedback.md says what to check first.
public enum FeedbackModel: String, Sendable, Hashable, CaseIterable {
    /// ACS ACR122U: the pseudo-APDU `FF 00 40` through the card's connection.
    case acr122u
    /// ACS ACR1252U: the same `FF 00 40` with a card, and escape commands (`SCardControl`) on a
    /// direct connection.
    case acr1252u

    /// The model a PC/SC reader name says (`ACS ACR122U PICC Interface 00 00`,
    /// `ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader PICC] 00 00`); `nil` for any other.
    public init?(readerName: String) {
        let name = readerName.uppercased()
        if name.hasPrefix("ACS ACR122U") || name.hasPrefix("ACS ACR122 ") {
            self = .acr122u
        } else if name.hasPrefix("ACS ACR1252") {
            self = .acr1252u
        } else {
            return nil
        }
    }
}
