import ISO7816
import VAS

/// `BERTLVParser` on any bytes: it returns or throws `TLVError`, never traps; what it returns
/// stays within its limits; and re-encoding the tree (minimal lengths) parses back to the same
/// tree. The strict limits of a GET VAS DATA answer (`VASDataResponse.tlvLimits`) are checked too.
enum TLVFuzzing {
    static func run(_ input: [UInt8]) throws(FuzzFinding) {
        for limits in [TLVLimits.default, VASDataResponse.tlvLimits] {
            guard let nodes = try? BERTLVParser.parse(input, limits: limits) else { continue }
            let (count, depth) = measure(nodes)
            try require(count <= limits.maxNodes, "\(count) nodes parsed with a limit of \(limits.maxNodes)")
            try require(depth <= limits.maxDepth, "depth \(depth) parsed with a limit of \(limits.maxDepth)")
            let encoded = nodes.flatMap(BERTLVWriter.encode)
            let again: [TLVNode]
            do {
                again = try BERTLVParser.parse(encoded, limits: limits)
            } catch {
                throw FuzzFinding("re-encoded TLV \(encoded.hexString) no longer parses: \(error)")
            }
            try require(
                again.map(Shape.init) == nodes.map(Shape.init),
                "re-encoded TLV parses to another tree: \(input.hexString) -> \(encoded.hexString)")
        }
    }

    /// A node as its tag, leaf value and children, without the value bytes of a constructed node
    /// (which keep the card's length encodings, not the writer's).
    struct Shape: Equatable {
        var tag: TLVTag
        var leaf: [UInt8]?
        var children: [Shape]?

        init(_ node: TLVNode) {
            tag = node.tag
            leaf = node.children == nil ? node.value : nil
            children = node.children?.map(Shape.init)
        }
    }

    /// How many nodes, and how many constructed levels deep (as `TLVLimits.maxDepth` counts).
    static func measure(_ nodes: [TLVNode]) -> (count: Int, depth: Int) {
        var count = 0
        var depth = 0
        for node in nodes {
            count += 1
            if let children = node.children {
                let inner = measure(children)
                count += inner.count
                depth = max(depth, inner.depth + 1)
            }
        }
        return (count, depth)
    }
}
