internal import CSockDiag
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Which user owns the other end of a loopback TCP connection, as the kernel says: an exact
/// inet_diag query (sock_diag(7), `NETLINK_SOCK_DIAG`, `SOCK_DIAG_BY_FAMILY`) for the peer's
/// socket by its four-tuple, answered with that socket's `idiag_uid`. This is how `ss -e` shows a
/// socket's `uid:`, and what `SO_PEERCRED` is to a Unix socket; any user may ask, and systemd's
/// `RestrictAddressFamilies=` already allows `AF_NETLINK`.
///
/// It never waits, so it may run on an event loop: the kernel looks the socket up and queues its
/// answer within the `send(2)` of an exact request, and the `recv(2)` after it (`MSG_DONTWAIT`)
/// finds it there. Should it not (it never did here), the owner is unknown
/// (``LoopbackPeerOwnerError/Code/noAnswer``); a late answer is skipped by its sequence number.
///
/// One netlink socket (one descriptor, counted in the file-descriptor budget), opened at init,
/// shared by the listener's event loops under a lock held for those two system calls. The only
/// `import CSockDiag` in the package. Addresses come as text and port (IPv4 or IPv6 literals),
/// so this target needs no NIO.
public final class LoopbackPeerOwner: Sendable {
    private struct State {
        /// The netlink socket, or the errno that made opening it fail.
        var socket: Result<CInt, LoopbackPeerOwnerError>
        var sequence: UInt32 = 0
        var buffer = [UInt8](repeating: 0, count: 8192)
    }

    private let state: Mutex<State>

    /// Opens the netlink socket; a failure is kept and returned by every ``uid(ofPeer:local:)``.
    public init() {
        let descriptor = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_SOCK_DIAG)
        state = Mutex(State(socket: descriptor >= 0 ? .success(descriptor) : .failure(LoopbackPeerOwnerError(.socketUnavailable, errno: errno))))
    }

    deinit {
        state.withLock { if case .success(let descriptor) = $0.socket { close(descriptor) } }
    }

    /// The uid owning the socket at `peer` that is connected to `local` (a connection accepted on
    /// a loopback listener: `peer` is its remote address, `local` its local one), each an IPv4
    /// or IPv6 literal and a port.
    public func uid(ofPeer peer: (host: String, port: Int), local: (host: String, port: Int)) -> Result<UInt32, LoopbackPeerOwnerError> {
        var message = passtap_inet_diag_request()
        // The peer's socket: its own (source) address is our remote one.
        guard let family = Self.store(peer.host, in: &message.request.id.idiag_src), Self.store(local.host, in: &message.request.id.idiag_dst) == family
        else { return .failure(LoopbackPeerOwnerError(.notTCP)) }
        message.request.sdiag_family = UInt8(family)
        message.request.id.idiag_sport = UInt16(truncatingIfNeeded: peer.port).bigEndian
        message.request.id.idiag_dport = UInt16(truncatingIfNeeded: local.port).bigEndian
        message.request.sdiag_protocol = UInt8(IPPROTO_TCP)
        message.request.idiag_states = UInt32.max
        message.request.id.idiag_cookie = (INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE)
        message.header.nlmsg_len = UInt32(MemoryLayout<passtap_inet_diag_request>.size)
        message.header.nlmsg_type = UInt16(SOCK_DIAG_BY_FAMILY)
        message.header.nlmsg_flags = UInt16(NLM_F_REQUEST)
        return state.withLock { state in
            let descriptor: CInt
            switch state.socket {
            case .failure(let error): return .failure(error)
            case .success(let open): descriptor = open
            }
            state.sequence &+= 1
            message.header.nlmsg_seq = state.sequence
            let sent = withUnsafeBytes(of: &message) { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard sent == MemoryLayout<passtap_inet_diag_request>.size else { return .failure(LoopbackPeerOwnerError(.queryFailed, errno: errno)) }
            // Answers to earlier queries that came late are skipped; a few reads at most.
            for _ in 0..<4 {
                let received = state.buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                guard received > 0 else {
                    return .failure(errno == EAGAIN || errno == EWOULDBLOCK ? LoopbackPeerOwnerError(.noAnswer) : LoopbackPeerOwnerError(.queryFailed, errno: errno))
                }
                if let answer = Self.answer(in: state.buffer[..<received], sequence: state.sequence) { return answer }
            }
            return .failure(LoopbackPeerOwnerError(.noAnswer))
        }
    }

    /// Writes the IPv4 or IPv6 address `host` (in network order) into `field` (`idiag_src`,
    /// `idiag_dst`: four 32-bit words); returns its family, or `nil` when it is neither.
    private static func store(_ host: String, in field: inout (UInt32, UInt32, UInt32, UInt32)) -> CInt? {
        withUnsafeMutableBytes(of: &field) { bytes in
            if inet_pton(AF_INET, host, bytes.baseAddress) == 1 { return AF_INET }
            if inet_pton(AF_INET6, host, bytes.baseAddress) == 1 { return AF_INET6 }
            return nil
        }
    }

    /// The answer with `sequence` among the netlink messages in `bytes`: the uid of an
    /// `inet_diag_msg`, or the error of an `NLMSG_ERROR`; `nil` when none has that sequence.
    private static func answer(in bytes: ArraySlice<UInt8>, sequence: UInt32) -> Result<UInt32, LoopbackPeerOwnerError>? {
        bytes.withUnsafeBytes { raw -> Result<UInt32, LoopbackPeerOwnerError>? in
            let headerLength = Int(passtap_nlmsg_hdrlen())
            var offset = 0
            while offset + headerLength <= raw.count {
                let header = raw.loadUnaligned(fromByteOffset: offset, as: nlmsghdr.self)
                let length = Int(header.nlmsg_len)
                guard length >= headerLength, offset + length <= raw.count else { return .failure(LoopbackPeerOwnerError(.malformedAnswer)) }
                if header.nlmsg_seq == sequence {
                    switch Int32(header.nlmsg_type) {
                    case Int32(NLMSG_ERROR):
                        guard length >= headerLength + MemoryLayout<nlmsgerr>.size else { return .failure(LoopbackPeerOwnerError(.malformedAnswer)) }
                        let error = raw.loadUnaligned(fromByteOffset: offset + headerLength, as: nlmsgerr.self).error
                        // ENOENT: no such socket any more (the peer has gone).
                        return .failure(LoopbackPeerOwnerError(-error == ENOENT ? .peerGone : .queryFailed, errno: -error))
                    case Int32(SOCK_DIAG_BY_FAMILY):
                        guard length >= headerLength + MemoryLayout<inet_diag_msg>.size else { return .failure(LoopbackPeerOwnerError(.malformedAnswer)) }
                        return .success(raw.loadUnaligned(fromByteOffset: offset + headerLength, as: inet_diag_msg.self).idiag_uid)
                    default:
                        return .failure(LoopbackPeerOwnerError(.malformedAnswer))
                    }
                }
                offset += Int(passtap_nlmsg_align(UInt32(length)))
            }
            return nil
        }
    }
}
