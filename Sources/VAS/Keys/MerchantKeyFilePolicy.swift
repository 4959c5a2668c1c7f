#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Who may read or write a merchant key file (issue 3 §2): the owner and, read-only, the group.
///
/// Refused: any permission for others (`o+r`, `o+w`, `o+x`), group write, and anything that is
/// not a regular file. `0600` and `0640 root:passtap` pass; `0644` and `0620` do not.
public enum MerchantKeyFilePolicy {
    /// Permission bits that refuse a key file: group write and everything for others.
    public static let forbiddenBits: UInt32 = 0o027

    /// Checks the file at `path` (following symbolic links, as opening it would).
    public static func check(path: String) throws(MerchantKeyError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MerchantKeyError(.unreadable, path: path, "cannot inspect it (\(String(cString: strerror(errno)))); check the path in the configuration")
        }
        try check(mode: UInt32(info.st_mode), path: path)
    }

    /// Checks a `st_mode` value (file type and permission bits) for `path`.
    public static func check(mode: UInt32, path: String) throws(MerchantKeyError) {
        guard mode & UInt32(S_IFMT) == UInt32(S_IFREG) else {
            throw MerchantKeyError(.notRegularFile, path: path, "not a regular file; point the configuration at the key file itself")
        }
        let permissions = mode & 0o7777
        guard permissions & forbiddenBits == 0 else {
            let octal = String(permissions, radix: 8)
            var problems: [String] = []
            if permissions & 0o004 != 0 { problems.append("readable by others") }
            if permissions & 0o002 != 0 { problems.append("writable by others") }
            if permissions & 0o001 != 0 { problems.append("executable by others") }
            if permissions & 0o020 != 0 { problems.append("writable by its group") }
            throw MerchantKeyError(
                .insecurePermissions, path: path,
                "mode \(octal) makes it \(problems.joined(separator: " and ")); run chmod 0640 (group passtap) or chmod 0600"
            )
        }
    }
}
