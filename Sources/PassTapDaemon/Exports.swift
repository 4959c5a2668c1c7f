/// The config loader is the target PassTapConfig, so that the config fuzz target builds without
/// the daemon. Loading and checking a config file is part of the daemon's API (`passtapd
/// --check-config`, the reload), so `import PassTapDaemon` brings the loader with it.
@_exported import PassTapConfig
