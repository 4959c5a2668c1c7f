import Foundation
import ISO7816
import Testing
import VAS

/// The replay cache remembers one-time phone keys (bytes 4..<36 of a cryptogram, vas-protocol.md
/// §5.1) until it is full, whatever their age. Checked with the published cryptograms.
@Suite(.timeLimit(.minutes(1))) struct VASReplayCacheTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func cryptogram(_ hex: String) throws -> VASCryptogram {
        try #require(VASCryptogram(bytes: [UInt8](hex: hex)))
    }

    @Test func aKeySeenTwiceIsReportedWithItsFirstSighting() throws {
        let cache = VASReplayCache()
        let vector = try Self.cryptogram(VASDecryptorTests.vector1)
        #expect(cache.record(vector, at: Self.start) == nil)
        #expect(cache.record(vector, at: Self.start.addingTimeInterval(10)) == Self.start)
        #expect(cache.count == 1)
    }

    @Test func theKeyIsTheEphemeralXNotTheWholeCryptogram() throws {
        // §8.5: variants A and B were made with the same ephemeral key; the ciphertexts differ.
        let cache = VASReplayCache()
        let a = try Self.cryptogram(VASDecryptorTests.syntheticA)
        let b = try Self.cryptogram(VASDecryptorTests.syntheticB)
        #expect(a.bytes != b.bytes && a.ephemeralX == b.ephemeralX)
        #expect(cache.record(a, at: Self.start) == nil)
        #expect(cache.record(b, at: Self.start) == Self.start)
        // Vector 1 has another phone key.
        #expect(cache.record(try Self.cryptogram(VASDecryptorTests.vector1), at: Self.start) == nil)
    }

    @Test func aKeyIsNotForgottenWithAge() throws {
        // Age is the freshness check's to judge, with the window of the moment: a key the cache
        // forgot by age would be fresh again once a reload widens the window.
        let cache = VASReplayCache()
        let vector = try Self.cryptogram(VASDecryptorTests.vector1)
        #expect(cache.record(vector, at: Self.start) == nil)
        #expect(cache.record(vector, at: Self.start.addingTimeInterval(121)) == Self.start)
        #expect(cache.record(vector, at: Self.start.addingTimeInterval(86_400 * 365)) == Self.start)
        #expect(cache.count == 1)
    }

    @Test func keysStayUntilTheCacheIsFull() throws {
        let cache = VASReplayCache(capacity: 2)
        let one = try Self.cryptogram(VASDecryptorTests.vector1)
        let two = try Self.cryptogram(VASDecryptorTests.syntheticA)
        let three = try Self.cryptogram(VASDecryptorTests.vector3)
        #expect(cache.record(one, at: Self.start) == nil)
        #expect(cache.record(two, at: Self.start) == nil)
        #expect(cache.record(one, at: Self.start.addingTimeInterval(1e9)) == Self.start)
        // Full: the oldest key goes to make room.
        #expect(cache.record(three, at: Self.start) == nil)
        #expect(cache.count == 2)
        #expect(cache.record(two, at: Self.start) == Self.start)
        #expect(cache.record(one, at: Self.start) == nil)
    }

    @Test func manyReadsStayWithinTheCapacity() throws {
        let cache = VASReplayCache(capacity: 100)
        let base = try [UInt8](hex: VASDecryptorTests.vector1)
        for index in 0..<1000 {
            var bytes = base
            bytes[4] = UInt8(index & 0xFF)
            bytes[5] = UInt8(index >> 8)
            #expect(cache.record(try #require(VASCryptogram(bytes: bytes)), at: Self.start) == nil)
        }
        #expect(cache.count == 100)
    }
}
