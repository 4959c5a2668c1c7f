import Foundation

/// The byte vectors of `Vectors/messages.txt` (sources in `Vectors/SOURCES.md`): `[section]`
/// headers, then `name = hex` lines (spaces inside the hex are ignored), `#` comments.
enum NDEFVectors {
    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "no vector \(name) in Vectors/messages.txt" }
    }

    /// Every vector, keyed `section/name`.
    static let all: [String: [UInt8]] = {
        guard let url = Bundle.module.url(forResource: "messages", withExtension: "txt", subdirectory: "Vectors"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { return [:] }
        var section = ""
        var vectors: [String: [UInt8]] = [:]
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let name = line[..<equals].trimmingCharacters(in: .whitespaces)
            let hex = line[line.index(after: equals)...].filter { !$0.isWhitespace }
            vectors["\(section)/\(name)"] = bytes(hex: String(hex))
        }
        return vectors
    }()

    /// The vector `section/name`.
    static func named(_ name: String) throws -> [UInt8] {
        guard let bytes = all[name] else { throw Missing(name: name) }
        return bytes
    }

    /// Hex digits (either case) as bytes.
    static func bytes(hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        var out: [UInt8] = []
        var index = 0
        while index + 1 < digits.count {
            out.append(UInt8(nibble(digits[index]) << 4 | nibble(digits[index + 1])))
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return 0
        }
    }
}

/// Hex bytes in a test: `hex("D1 01")`.
func hex(_ string: String) -> [UInt8] {
    NDEFVectors.bytes(hex: string.filter { !$0.isWhitespace })
}
