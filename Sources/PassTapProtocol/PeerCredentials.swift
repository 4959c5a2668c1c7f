import NIOCore

#if canImport(Glibc)
import Glibc
#endif

/// Who is at the other end of a connected Unix socket, as the kernel saw it when the connection
/// was made (`SO_PEERCRED`), with the peer's supplementary groups (`SO_PEERGROUPS`, Linux 4.13+).
///
/// The daemon reads it for each accepted client (to decide its roles); the CLI reads it for the
/// server it connected to (to refuse a process squatting on the socket path). Both read it once,
/// right after the connection is made, through ``read(from:)``: NIO's `unsafeGetSocketOption`
/// stays in this one non-inlinable place.
package struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The peer's process id (at connect time; it may have exited since).
    package var pid: Int32
    /// The peer's effective user id.
    package var uid: UInt32
    /// The peer's effective group id.
    package var gid: UInt32
    /// The peer's supplementary groups, without duplicates and without group 0 (see
    /// ``read(from:)``). Empty when the kernel could not say; ``groupsProblem`` then says why.
    package var groups: [UInt32]
    /// Why the supplementary groups could not be read (more than ``maximumGroups``, a kernel
    /// older than 4.13); `nil` when they were.
    package var groupsProblem: String?

    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32] = []) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Every group the peer is in: its primary group and its supplementary groups.
    package var allGroups: Set<UInt32> { Set(groups).union([gid]) }

    package var description: String { "uid \(uid) gid \(gid) pid \(pid)" }

    /// The most supplementary groups read; a peer in more keeps only its primary group.
    package static let maximumGroups = 128

    /// Reads the credentials of the peer of `channel`, a connected Unix stream socket.
    /// - Throws: when the channel is not a socket or the kernel refuses `SO_PEERCRED`.
    package static func read(from channel: any Channel) async throws -> PeerCredentials {
        guard let provider = channel as? any SocketOptionProvider else { throw PeerCredentialsError.notASocket }
        let credentials: UCred = try await provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerCredentialsOption)
        ).get()
        var result = PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
        // NIO hands getsockopt a zeroed buffer of the type's size and does not return the length
        // the kernel wrote, so unused slots read as gid 0. Group 0 is therefore only taken from
        // SO_PEERCRED's primary gid, never from this list: a peer loses, never gains, a role by it.
        // A peer in more groups than fit gets ERANGE, and keeps its primary group only.
        do {
            let groups: GroupList = try await provider.unsafeGetSocketOption(
                level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(peerGroupsOption)
            ).get()
            var seen = Set<UInt32>()
            result.groups = withUnsafeBytes(of: groups) { raw in
                (0..<maximumGroups).map { raw.load(fromByteOffset: $0 * 4, as: UInt32.self) }
                    .filter { $0 != 0 && seen.insert($0).inserted }
            }
        } catch {
            result.groupsProblem = "its supplementary groups cannot be read (\(error)); only its primary group counts"
        }
        return result
    }

    /// `struct ucred` of `<sys/socket.h>`: three 32-bit fields, laid out as in C.
    private struct UCred: Sendable {
        var pid: Int32 = 0
        var uid: UInt32 = 0
        var gid: UInt32 = 0
    }

    /// A fixed buffer of ``maximumGroups`` `gid_t`s for `SO_PEERGROUPS`.
    private struct GroupList: Sendable {
        var slots: (
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64,
            UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64
        ) = (
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
        )
    }

    #if os(Linux)
    // From the C library's headers: the numbers differ between architectures (21 on powerpc).
    private static let peerCredentialsOption = Int32(SO_PEERCRED)
    private static let peerGroupsOption = Int32(SO_PEERGROUPS)
    #else
    private static let peerCredentialsOption: Int32 = -1
    private static let peerGroupsOption: Int32 = -1
    #endif
}

/// Why ``PeerCredentials/read(from:)`` could not say who the peer is.
package enum PeerCredentialsError: Error, Hashable, CustomStringConvertible {
    case notASocket

    package var description: String { "the connection is not a socket, so its peer's credentials cannot be read" }
}
