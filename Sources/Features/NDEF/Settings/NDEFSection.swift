package import ConfigKit
public import PassTapCore

/// `[ndef]`: whether taps read tags' NDEF messages (docs/configuration.md, "NDEF tags").
package enum NDEFSection: ConfigSection {
    package static let table = "ndef"
    package static let opensFiles = false
    package static let keys = ["ndef.enabled"]
    /// A reload puts it in force at the next tap.
    package static let settings: [ConfigSetting] = [ConfigSetting("ndef.enabled", \.ndef.enabled)]

    /// Reads `[ndef]`: its one switch.
    package static func read(_ table: inout TableReader, into configuration: inout Configuration, context: ConfigSectionContext)
        throws(ConfigurationError)
    {
        configuration.ndef.enabled = try table.bool("enabled") ?? configuration.ndef.enabled
        try table.rejectUnknownKeys()
    }
}
