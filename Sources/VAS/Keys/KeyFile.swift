#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two file operations key handling needs, on one descriptor each so the permission check
/// and the read see the same file.
enum KeyFile {
    /// Opens `path`, checks it with ``MerchantKeyFilePolicy`` through `fstat`, then reads at most
    /// `limit + 1` bytes (so an oversized file is noticed).
    static func readChecked(path: String, limit: Int) throws(MerchantKeyError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO put in the key's place must not hang start-up; it then
        // fails the regular-file check.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw failure(.unreadable, path, "cannot open it") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(.unreadable, path, "cannot inspect it") }
        try MerchantKeyFilePolicy.check(mode: UInt32(info.st_mode), path: path)
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw failure(.unreadable, path, "reading failed") }
            if count == 0 { break }
            filled += count
        }
        return Array(bytes[0..<filled])
    }

    /// Creates `path` with mode 0600, refusing to replace an existing file, and writes `bytes`.
    static func writeNew(path: String, bytes: [UInt8]) throws(MerchantKeyError) {
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
