import Foundation
import ISO7816
import PassTapCore
import Testing

/// `@Nullable` under synthesized `Codable`: a `nil` member is written as `null`, never left out,
/// and a missing or `null` member reads as `nil`.
@Suite(.timeLimit(.minutes(1))) struct NullableTests {
    struct Sample: Codable, Hashable {
        var name: String
        @Nullable var note: String?
        @Nullable var count: Int?
    }

    private func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func aNilMemberIsWrittenAsNull() throws {
        let json = try object(Sample(name: "a", note: nil, count: 3))
        #expect(Set(json.keys) == ["name", "note", "count"])
        #expect(json["note"] is NSNull)
        #expect(json["count"] as? Int == 3)
    }

    @Test(arguments: [#"{"name":"a"}"#, #"{"name":"a","note":null,"count":null}"#])
    func aMissingOrNullMemberReadsAsNil(json: String) throws {
        let sample = try JSONDecoder().decode(Sample.self, from: Data(json.utf8))
        #expect(sample == Sample(name: "a", note: nil, count: nil))
    }

    @Test func aCardWithoutUIDStillHasEveryMember() throws {
        let json = try object(CardInfo(atr: "3B8180018080", uid: nil))
        #expect(Set(json.keys) == ["atr", "uid", "uid_note", "atqa", "sak", "ats"])
        #expect(json["atr"] as? String == "3B8180018080")
    }

    @Test func anUnknownTransportCodeIsReadAsTransportFailedKeepingItsName() throws {
        let json = #"{"code":"rf_field_lost","message":"the field dropped"}"#
        let error = try JSONDecoder().decode(CardTransportError.self, from: Data(json.utf8))
        #expect(error.code == .transportFailed)
        #expect(error.message == "rf_field_lost: the field dropped")
        let known = try JSONDecoder().decode(CardTransportError.self, from: Data(#"{"code":"card_removed","message":"m"}"#.utf8))
        #expect(known.code == .cardRemoved && known.message == "m")
    }
}
