extension SocketServer {
    /// Judges the directories on the way to a socket at `path` as ``run()`` does, for the user
    /// this process runs as (under the unit's `ExecStartPre`, `passtapd`): `passtapd
    /// --check-config` runs it. Where a directory does not exist yet (`/run/passtap` before the
    /// unit's start makes it), the nearest one that exists is judged.
    /// - Throws: ``SocketServerError`` (`insecure_directory`) naming the directory and what to do.
    public static func checkDirectories(forSocketAt path: String) throws(SocketServerError) {
        _ = try SocketFile(path: path).checkDirectories(allowingMissing: true)
    }
}
