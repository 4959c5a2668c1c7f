import ArgumentParser
import Foundation
import ISO7816
import PassTapProtocol
import VAS
import Wallets

/// What the offline key tools (`keygen`, `key-info`, `vas-decrypt`) share: loading a key with
/// passtapd's checks, JSON output with a stable key order, and how they end on an error (a
/// `passtap: ...` line on standard error and a sysexits(3) code).
///
/// | Code | Name | When |
/// |---|---|---|
/// | 64 | EX_USAGE | bad arguments (pass type id, hex) |
/// | 65 | EX_DATAERR | a key file that is no P-256 key; a cryptogram that does not decrypt |
/// | 66 | EX_NOINPUT | a key file that cannot be opened or is not a regular file |
/// | 67 | EX_NOUSER | `keygen --owner` names a user or group the system does not have |
/// | 73 | EX_CANTCREAT | a new key file or its folder cannot be created, or the file exists |
/// | 77 | EX_NOPERM | a key file others may read, or owned or readable by the wrong user or group (the policy passtapd applies); `keygen --owner` without the right to chown |
enum KeyTools {
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let noUser: Int32 = 67
    static let cannotCreate: Int32 = 73
    static let noPermission: Int32 = 77

    /// Prints `value` as one line of JSON with sorted keys, controls and bidirectional characters
    /// inside strings as `\u` escapes (``StrictJSON/terminalSafe(_:)``: a decrypted message is
    /// the phone's text).
    static func json<Value: Encodable>(_ value: Value) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        print(try StrictJSON.terminalSafe(encoder.encode(value)))
    }

    /// Prints `passtap: message` on standard error and returns the code to throw. The message may
    /// quote a captured answer (a problem text), so it is escaped.
    static func exit(_ message: String, code: Int32) -> ExitCode {
        FileHandle.standardError.write(Data("passtap: \(UntrustedText.escaped(message))\n".utf8))
        return ExitCode(code)
    }

    /// Prints a key file error (it names the path and the reason, never key bytes) and returns
    /// its code.
    static func exit(_ error: MerchantKeyError) -> ExitCode {
        exit(error.description, code: code(of: error))
    }

    /// The exit code for a key file error.
    static func code(of error: MerchantKeyError) -> Int32 {
        switch error.code {
        case .unreadable, .notRegularFile: noInput
        case .insecurePermissions, .untrustedOwner: noPermission
        case .tooLarge, .unrecognizedFormat, .encrypted, .notP256, .invalidScalar: dataError
        case .alreadyExists, .writeFailed: cannotCreate
        }
    }

    /// Prints why `--owner` cannot be used and returns its code.
    static func exit(_ error: KeyFileOwnerError) -> ExitCode {
        let code: Int32
        switch error.code {
        case .malformed: code = ExitCode.validationFailure.rawValue
        case .unknownUser, .unknownGroup: code = noUser
        case .notPermitted: code = noPermission
        case .failed: code = cannotCreate
        }
        return exit(error.description, code: code)
    }

    /// The key-file rules of passtapd, as far as they can be known offline: for the user
    /// `passtapd` if the system has one (packages run the daemon as it), else for this process.
    /// The socket's group is not known here; passtapd also refuses a key that group can read.
    static var keyFilePolicy: MerchantKeyFilePolicy {
        if let daemon = DaemonIdentity.account(named: DaemonIdentity.packagedUser) {
            return MerchantKeyFilePolicy(owners: [daemon.uid], readerGroups: [daemon.gid], socketGroup: nil)
        }
        return MerchantKeyFilePolicy()
    }

    /// Loads a merchant key with passtapd's checks (``MerchantKey/init(contentsOfFile:policy:)``
    /// with ``keyFilePolicy``), turning a refusal into a message and an exit code.
    static func loadKey(_ path: String) throws(ExitCode) -> MerchantKey {
        do {
            return try MerchantKey(contentsOfFile: path, policy: keyFilePolicy)
        } catch {
            throw exit(error)
        }
    }

    /// `text` as a TOML basic string: in double quotes, with `"` and `\` escaped.
    static func tomlString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// Creates `path` with mode 0700 (and any missing parents) unless it is already a folder;
    /// returns whether it made it.
    static func makeFolder(_ path: String) throws(ExitCode) -> Bool {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw exit("--out \(path) is not a folder", code: KeyTools.cannotCreate)
            }
            return false
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw exit("cannot create the folder \(path): \(error.localizedDescription)", code: KeyTools.cannotCreate)
        }
        return true
    }

    /// Writes a new secret file `name` into the folder `out` (created with mode 0700 if missing)
    /// with `write`, which makes it with mode 0600 and never over an existing file, then gives the
    /// file (and the folder, if made here) to `owner` (`USER[:GROUP]`). The owner is resolved
    /// before anything is written; if giving the file away fails, nothing is left behind.
    /// `kind` (`merchant key`, `token file`) and `ifItExists` (what to do instead) word the errors.
    static func writeNewFile(
        named name: String, in out: String, owner: String?, kind: String, ifItExists: String,
        write: (String) throws(MerchantKeyError) -> Void
    ) throws(ExitCode) -> (path: String, owner: KeyFileOwner?) {
        let fileOwner: KeyFileOwner?
        do {
            fileOwner = try owner.map { text throws(KeyFileOwnerError) in try KeyFileOwner(parsing: text) }
        } catch {
            throw exit(error)
        }
        let folder = URL(fileURLWithPath: out).standardizedFileURL
        let madeFolder = try makeFolder(folder.path)
        let path = folder.appendingPathComponent(name).path
        do {
            try write(path)
        } catch where error.code == .alreadyExists {
            throw exit("\(kind) \(error.path): \(error.reason); \(ifItExists)", code: cannotCreate)
        } catch {
            throw exit("\(kind) \(error.path): \(error.reason)", code: code(of: error))
        }
        if let fileOwner {
            do {
                try fileOwner.apply(toFile: path)
                if madeFolder { try fileOwner.apply(toFile: folder.path) }
            } catch {
                // A secret that is not where it was asked to be is left nowhere.
                try? FileManager.default.removeItem(atPath: path)
                if madeFolder { try? FileManager.default.removeItem(atPath: folder.path) }
                throw exit(error)
            }
        }
        return (path, fileOwner)
    }
}
