import ConfigKit
import PassTapConfig
public import PassTapCore
import VASSettings

/// What a reload does with a new, valid configuration: the configuration to put in force (the new
/// one, with the running value of every restart-only setting), what changed, and which
/// restart-only settings differ.
public struct ReloadPlan: Sendable {
    /// The configuration to run with from now on.
    public let effective: Configuration
    /// The reloadable settings that changed, by config key, in ``ConfigSetting/reloadable`` order.
    public let changed: [String]
    /// The restart-only settings that differ, by config key: they keep their running value.
    public let restartRequired: [String]

    /// Compares `new` with the configuration running now (`old`).
    public init(old: Configuration, new: Configuration) {
        var effective = new
        var restartRequired: [String] = []
        for setting in ConfigSetting.restartOnly where setting.differs(old, new) {
            restartRequired.append(setting.key)
            setting.keep(&effective, old)
        }
        self.effective = effective
        self.restartRequired = restartRequired
        changed = ConfigSetting.reloadable.filter { $0.differs(old, effective) }.map(\.key)
    }

    /// Whether the backend `name` must be restarted (or started, or stopped): its section, or
    /// what its readers were built with, differs.
    public static func backendDiffers(_ name: ReaderID.Backend, old: Configuration, new: Configuration) -> Bool {
        guard old.section(name) == new.section(name) else { return true }
        guard name == .nfc, new.section(.nfc).enabled else { return false }
        // The libnfc readers poll with [libnfc]'s settings and the ECP frame of [vas].
        return old.libnfc != new.libnfc
            || old.libnfc.pollingFrame(vas: old.vas) != new.libnfc.pollingFrame(vas: new.vas)
            || Configuration.LibNFC.deselectsAfterRFFailure(vas: old.vas) != Configuration.LibNFC.deselectsAfterRFFailure(vas: new.vas)
    }
}
