import TOMLKit

extension ConfigNode {
    /// Copies a TOMLKit value tree.
    package init(_ value: any TOMLValueConvertible) {
        switch value.type {
        case .string: self = .string(value.string ?? "")
        case .int: self = .integer(value.int ?? 0)
        case .bool: self = .boolean(value.bool ?? false)
        case .double: self = .float(value.double ?? 0)
        case .array: self = .array((value.array.map { Array($0) } ?? []).map(ConfigNode.init))
        case .table: self = .table(value.table.map(ConfigNode.entries) ?? [])
        case .date: self = .other(typeName: "date")
        case .time: self = .other(typeName: "time")
        case .dateTime: self = .other(typeName: "date-time")
        }
    }

    /// The entries of a table, sorted by key (toml++ does not keep file order; lines are found by
    /// ``SourceLocator`` instead).
    package static func entries(of table: TOMLTable) -> [(key: String, value: ConfigNode)] {
        var entries: [(key: String, value: ConfigNode)] = []
        for (key, value) in table {
            entries.append((key, ConfigNode(value)))
        }
        return entries.sorted { $0.key < $1.key }
    }
}
