/// The refusal type (`ConfigurationError`) lives in the reading kit, ConfigKit, which every
/// feature's section reader shares; whoever loads a config file gets it with the loader.
@_exported import ConfigKit
