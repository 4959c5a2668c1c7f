import Foundation
import ISO7816

/// Loads the committed vector files (see Vectors/SOURCES.md).
enum TestVectors {
    struct MissingResource: Error, CustomStringConvertible {
        let name: String
        var description: String { "test resource Vectors/\(name) is missing from the bundle" }
    }

    static func data(_ name: String) throws -> Data {
        guard let base = Bundle.module.resourceURL else { throw MissingResource(name: name) }
        let url = base.appendingPathComponent("Vectors").appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { throw MissingResource(name: name) }
        return try Data(contentsOf: url)
    }

    static func json<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
        try JSONDecoder().decode(T.self, from: data(name))
    }

    /// kormax/google-smart-tap's published exchange (Vectors/kormax_google_smart_tap.json).
    struct Kormax: Decodable {
        var ose_answer: String
        var smart_tap_2_answer: String
        var negotiate_request: String
        var negotiate_response: String
        var get_data_request: String
        var get_data_response: String
    }

    static func kormax() throws -> Kormax { try json(Kormax.self, "kormax_google_smart_tap.json") }
}
