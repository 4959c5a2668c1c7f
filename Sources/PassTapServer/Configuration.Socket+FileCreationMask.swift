public import PassTapCore

extension Configuration.Socket {
    /// The umask under which the socket file is created no looser than ``mode``: `bind()` makes
    /// the file with mode 0777 less the umask, and this mask keeps only ``mode``'s owner bits, so
    /// until ``SocketServer`` has set the group and the mode, nobody but the daemon's user can
    /// connect. (A socket file needs write permission to be connected to.)
    ///
    /// `passtapd` sets it as its umask at start (`Daemon.restrictFileCreation(for:)`): the umask
    /// is per process, so the server itself cannot set it only around its own `bind()`.
    public var fileCreationMask: UInt16 {
        0o777 & ~(mode & 0o700)
    }
}
