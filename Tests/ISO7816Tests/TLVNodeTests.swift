import ISO7816
import Testing

@Suite(.timeLimit(.minutes(1))) struct TLVNodeTests {
    static let tree = TLVNode(tag: 0x6F, value: [], children: [
        TLVNode(tag: 0x50, value: [0x01]),
        TLVNode(tag: 0xA5, value: [], children: [TLVNode(tag: 0x9F27, value: [0x02])]),
        TLVNode(tag: 0x50, value: [0x03]),
    ])

    @Test func firstFindsTheEarliestDirectChildOnly() {
        #expect(Self.tree.first(0x50)?.value == [0x01])
        #expect(Self.tree.first(0x9F27) == nil)
        #expect(Self.tree.first(0xA5)?.first(0x9F27)?.value == [0x02])
    }

    @Test func aPrimitiveNodeHasNoChildToFind() {
        #expect(TLVNode(tag: 0x50, value: [0x50, 0x00]).first(0x50) == nil)
    }

    @Test func firstOnAnArraySearchesThatLevel() throws {
        let children = try #require(Self.tree.children)
        #expect(children.first(0x50)?.value == [0x01])
        #expect(children.first(0x6F) == nil)
    }
}
