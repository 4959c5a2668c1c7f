#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `struct group` of `<grp.h>` (inside the policy, `group` names its method).
private typealias GroupEntry = group

/// Who may own, read and write a merchant or collector key file (docs/vas-keys.md, "Who may read
/// a key file").
///
/// A key file is accepted when it is a regular file and
/// - others have no permission at all (`o+r`, `o+w`, `o+x`), and its group may not write it;
/// - it belongs to root or to the daemon's user (the process that loads it);
/// - if its group may read it, that group is the daemon's own group and **not** the socket's
///   group: members of `[socket] group` are clients, and a client must never read a key. When
///   the daemon's group is the socket's group, no group may read it (chmod 0600).
///
/// `0600` (owner root or the daemon's user) always passes; `0640 root:passtapd`, where passtapd
/// runs with group `passtapd` and the socket's group is another (`passtap`), passes too.
///
/// On a reload, the socket passtapd listens on keeps the group and mode it was started with (they
/// change only at restart), so its group (``listeningSocketGroup``) may not read a key either,
/// whatever the file's `[socket]` says now: of the two socket groups, neither reads a key.
///
/// A symbolic link is followed only to a file that passes the same checks; one that points
/// nowhere is refused. The checks are made on the file that was opened (`fstat`), not on its name,
/// so the file judged is the file read.
///
/// `[[web.tokens]] token_file`s are judged by the same policy: a socket client that could read a
/// token with the `read` role would get that role on the web listener.
public struct MerchantKeyFilePolicy: Sendable, Hashable {
    /// Permission bits that refuse a key file whoever owns it: group write and everything for others.
    public static let forbiddenBits: UInt32 = 0o027

    /// The users that may own a key file: root and the daemon's user.
    public var owners: Set<UInt32>
    /// The groups that may read a key file (`0640`): the daemon's own group.
    public var readerGroups: Set<UInt32>
    /// The socket file's group (`nil`: no group can open the socket). It may never read a key,
    /// even when it is also in ``readerGroups``.
    public var socketGroup: UInt32?
    /// On a reload, the group of the socket passtapd listens on now, when it differs from
    /// ``socketGroup`` (`[socket] group` and `mode` change only at restart): its members are the
    /// clients until then, so it may never read a key either. `nil` at start and for
    /// `--check-config`, which judge the file alone.
    public var listeningSocketGroup: UInt32?

    /// A policy with the given owners, reader groups and socket group. Root may always own a key.
    public init(owners: Set<UInt32>, readerGroups: Set<UInt32>, socketGroup: UInt32?) {
        self.owners = owners.union([0])
        self.readerGroups = readerGroups
        self.socketGroup = socketGroup
    }

    /// The policy of the daemon running as this process: owned by root or this process's effective
    /// user, readable by its effective group, never by `socketGroup`.
    public init(socketGroup: UInt32? = nil) {
        self.init(owners: [UInt32(geteuid())], readerGroups: [UInt32(getegid())], socketGroup: socketGroup)
    }

    /// The parts of a file's `stat` the policy judges.
    public struct FileStatus: Sendable, Hashable {
        /// `st_mode`: file type and permission bits.
        public var mode: UInt32
        /// `st_uid`: the owner.
        public var uid: UInt32
        /// `st_gid`: the group.
        public var gid: UInt32

        /// A status with these values.
        public init(mode: UInt32, uid: UInt32, gid: UInt32) {
            self.mode = mode
            self.uid = uid
            self.gid = gid
        }
    }

    /// Checks the file at `path` as loading it would: through a symbolic link only to a file that
    /// passes, on the opened file.
    public func check(path: String) throws(MerchantKeyError) {
        let file = try KeyFile.openChecked(path: path, policy: self)
        close(file)
    }

    /// Checks a file's type, mode, owner and group for `path` (which only labels the error).
    public func check(_ status: FileStatus, path: String) throws(MerchantKeyError) {
        guard status.mode & UInt32(S_IFMT) == UInt32(S_IFREG) else {
            throw MerchantKeyError(.notRegularFile, path: path, "not a regular file; point the configuration at the key file itself")
        }
        let permissions = status.mode & 0o7777
        let octal = String(permissions, radix: 8)
        guard permissions & Self.forbiddenBits == 0 else {
            var problems: [String] = []
            if permissions & 0o004 != 0 { problems.append("readable by others") }
            if permissions & 0o002 != 0 { problems.append("writable by others") }
            if permissions & 0o001 != 0 { problems.append("executable by others") }
            if permissions & 0o020 != 0 { problems.append("writable by its group") }
            throw MerchantKeyError(
                .insecurePermissions, path: path,
                "mode \(octal) makes it \(problems.joined(separator: " and ")); run chmod 0600 \(path) (or 0640 with passtapd's own group)"
            )
        }
        guard owners.contains(status.uid) else {
            throw MerchantKeyError(
                .untrustedOwner, path: path,
                "owned by \(Self.user(status.uid)), neither root nor the user passtapd runs as (\(owners.sorted().map(Self.user).joined(separator: ", "))); run chown root \(path)"
            )
        }
        guard permissions & 0o040 != 0 else { return }
        let group = Self.group(status.gid)
        if status.gid == socketGroup {
            let daemonGroups = readerGroups.subtracting([status.gid]).sorted()
            let share = daemonGroups.first.map { ", or chgrp \(Self.groupName($0)) \(path) to share it with passtapd's own group only" } ?? ""
            throw MerchantKeyError(
                .insecurePermissions, path: path,
                "mode \(octal) lets group \(group) read it, and that is the socket's group: every client could read the key; run chmod 0600 \(path)\(share)"
            )
        }
        if let listening = listeningSocketGroup, status.gid == listening {
            throw MerchantKeyError(
                .insecurePermissions, path: path,
                "mode \(octal) lets group \(group) read it, and that is the group of the socket passtapd listens on now ([socket] group and mode change only at restart): every client could read the key; run chmod 0600 \(path), or restart passtapd to put the file's [socket] in force"
            )
        }
        guard readerGroups.contains(status.gid) else {
            let own = readerGroups.sorted().map(Self.group).joined(separator: ", ")
            let fix = readerGroups.sorted().first.map { "chgrp \(Self.groupName($0)) \(path), or " } ?? ""
            throw MerchantKeyError(
                .insecurePermissions, path: path,
                "mode \(octal) lets group \(group) read it, which is not passtapd's own group (\(own)); run \(fix)chmod 0600 \(path)"
            )
        }
    }

    // MARK: Names for messages

    /// `alice (uid 1000)`, or `uid 1000` when the system has no such user.
    package static func user(_ uid: UInt32) -> String {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>? = nil
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getpwuid_r(uid_t(uid), &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return "uid \(uid)"
        }
        return "\(String(cString: name)) (uid \(uid))"
    }

    /// `passtap (gid 1001)`, or `gid 1001` when the system has no such group.
    static func group(_ gid: UInt32) -> String {
        let name = groupName(gid)
        return name == String(gid) ? "gid \(gid)" : "\(name) (gid \(gid))"
    }

    /// The group's name, or its number when the system has no such group (both work with chgrp).
    static func groupName(_ gid: UInt32) -> String {
        var entry = GroupEntry()
        var result: UnsafeMutablePointer<GroupEntry>? = nil
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        guard getgrgid_r(gid_t(gid), &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else {
            return String(gid)
        }
        return String(cString: name)
    }
}
