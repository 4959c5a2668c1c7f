/// A small reader of Prometheus' text format, to check what a registry emits sample by sample
/// instead of comparing whole strings.
struct PrometheusText {
    struct Sample: Hashable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    var samples: [Sample] = []
    /// `# TYPE` lines: metric name to type.
    var types: [String: String] = [:]

    struct Malformed: Error, CustomStringConvertible {
        var line: String
        var description: String { "not a sample line: \(line)" }
    }

    init(_ text: String) throws {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4 else { throw Malformed(line: String(line)) }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            samples.append(try Self.sample(String(line)))
        }
    }

    private static func sample(_ line: String) throws -> Sample {
        guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { throw Malformed(line: line) }
        let series = line[..<space]
        guard let brace = series.firstIndex(of: "{") else { return Sample(name: String(series), labels: [:], value: value) }
        guard series.hasSuffix("}") else { throw Malformed(line: line) }
        let name = String(series[..<brace])
        var labels: [String: String] = [:]
        var rest = series[series.index(after: brace)..<series.index(before: series.endIndex)]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { throw Malformed(line: line) }
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { throw Malformed(line: line) }
            rest = rest.dropFirst()
            var value = ""
            var escaped = false
            while let character = rest.first {
                rest = rest.dropFirst()
                if escaped {
                    value.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    break
                } else {
                    value.append(character)
                }
            }
            labels[key] = value
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return Sample(name: name, labels: labels, value: value)
    }

    /// The value of the one sample of `name` whose labels include `labels`; `nil` if none.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in sample.name == name && labels.allSatisfy { key, value in sample.labels[key] == value } }
        return matching.count == 1 ? matching[0].value : nil
    }

    /// Every sample of `name`.
    func series(_ name: String) -> [Sample] { samples.filter { $0.name == name } }
}
