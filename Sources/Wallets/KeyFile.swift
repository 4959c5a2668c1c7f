#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two file operations key handling needs, on one descriptor each so the permission check
/// and the read see the same file. Merchant keys use them, and so do web token files
/// (`PassTapCore`'s `WebTokenFile`): both are secrets a client must never read.
package enum KeyFile {
    /// Opens `path` for reading and checks the opened file (`fstat`) with `policy`; returns the
    /// descriptor, which the caller closes.
    ///
    /// A path that is not a symbolic link is opened with `O_NOFOLLOW`, so a link put in its place
    /// after the `lstat` is refused rather than followed. A symbolic link is followed, and what it
    /// leads to must pass the policy like any key file; a link to nothing is refused.
    package static func openChecked(path: String, policy: MerchantKeyFilePolicy) throws(MerchantKeyError) -> Int32 {
        var link = stat()
        guard lstat(path, &link) == 0 else { throw failure(.unreadable, path, "cannot open it") }
        let isLink = link.st_mode & S_IFMT == S_IFLNK
        var target: String? = nil
        if isLink {
            target = linkTarget(path)
            var followed = stat()
            guard stat(path, &followed) == 0 else {
                throw failure(.unreadable, path, "a symbolic link to \(target ?? "?"), which cannot be followed")
            }
        }
        // O_NONBLOCK: opening a FIFO put in the key's place must not hang start-up; it then
        // fails the regular-file check.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (isLink ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            if errno == ELOOP, !isLink {
                throw MerchantKeyError(.unreadable, path: path, "it was replaced by a symbolic link while being opened; check who can write its folder")
            }
            throw failure(.unreadable, path, "cannot open it")
        }
        do throws(MerchantKeyError) {
            var info = stat()
            guard fstat(fd, &info) == 0 else { throw failure(.unreadable, path, "cannot inspect it") }
            let status = MerchantKeyFilePolicy.FileStatus(mode: UInt32(info.st_mode), uid: UInt32(info.st_uid), gid: UInt32(info.st_gid))
            do {
                try policy.check(status, path: path)
            } catch {
                guard let target else { throw error }
                throw MerchantKeyError(error.code, path: path, "a symbolic link to \(target), which is refused: \(error.reason)")
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Opens and checks `path` (``openChecked(path:policy:)``), then reads at most `limit + 1`
    /// bytes (so an oversized file is noticed) into one buffer, which it returns: the caller owns
    /// the key bytes and zeroes them (``SecretBytes/zero(_:)``) once the key is made. On failure
    /// the bytes read so far are zeroed here.
    package static func readChecked(path: String, limit: Int, policy: MerchantKeyFilePolicy) throws(MerchantKeyError) -> [UInt8] {
        let fd = try openChecked(path: path, policy: policy)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                SecretBytes.zero(&bytes)
                throw failure(.unreadable, path, "reading failed")
            }
            if count == 0 { break }
            filled += count
        }
        // In place: the same storage, so the caller's zeroing reaches every byte read.
        bytes.removeSubrange(filled...)
        return bytes
    }

    /// Where the symbolic link at `path` points, as written in the link.
    private static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Creates `path` with mode 0600, refusing to replace an existing file, and writes `bytes`.
    package static func writeNew(path: String, bytes: [UInt8]) throws(MerchantKeyError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            if errno == EEXIST {
                throw MerchantKeyError(.alreadyExists, path: path, "a file is already there; keys are never overwritten, choose another name or move it away")
            }
            throw failure(.writeFailed, path, "cannot create it")
        }
        defer { close(fd) }
        do throws(MerchantKeyError) {
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { buffer in
                    write(fd, buffer.baseAddress! + written, buffer.count - written)
                }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { throw failure(.writeFailed, path, "writing failed") }
                written += count
            }
            guard fsync(fd) == 0 else { throw failure(.writeFailed, path, "flushing to disk failed") }
        } catch {
            // A partial key file would block the retry (keys are never overwritten): remove it,
            // if the name still points at the file this call created.
            var opened = stat()
            var named = stat()
            if fstat(fd, &opened) == 0, lstat(path, &named) == 0, opened.st_dev == named.st_dev, opened.st_ino == named.st_ino {
                unlink(path)
            }
            throw error
        }
    }

    private static func failure(_ code: MerchantKeyError.Code, _ path: String, _ what: String) -> MerchantKeyError {
        MerchantKeyError(code, path: path, "\(what): \(String(cString: strerror(errno)))")
    }
}
