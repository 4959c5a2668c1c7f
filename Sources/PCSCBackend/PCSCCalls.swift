internal import CPCSCLite
import Synchronization

/// The one chokepoint every pcsc-lite call goes through: it runs the call (which may block: only
/// ever on a PassTap-owned thread) and turns a return code other than `SCARD_S_SUCCESS` into a
/// ``PCSCError`` naming the function.
@inline(__always)
func pcsc(_ function: StaticString, _ call: () -> LONG) throws(PCSCError) {
    PCSCCalls.willCall(function)
    let result = call()
    guard result != SCARD_S_SUCCESS else { return }
    throw PCSCError(code: PCSCError.Code(result), function: function, message: String(cString: pcsc_stringify_error(result)))
}

/// The chokepoint for calls that let go of something (`SCardCancel`, `SCardDisconnect`,
/// `SCardReleaseContext`): their failure leaves nothing to undo (typically pcscd is already gone),
/// so it is returned for the caller to log rather than thrown.
@discardableResult
func pcscRelease(_ function: StaticString, _ call: () -> LONG) -> PCSCError? {
    do {
        try pcsc(function, call)
        return nil
    } catch {
        return error
    }
}

/// The chokepoint's seam for tests: an observer told of every pcsc-lite call before it is made,
/// on the calling thread (tests check that every call runs on a thread the backend owns).
package enum PCSCCalls {
    private static let observer = Mutex<(@Sendable (StaticString) -> Void)?>(nil)

    /// Sets (or, with `nil`, clears) the observer.
    package static func observe(_ body: (@Sendable (StaticString) -> Void)?) {
        observer.withLock { $0 = body }
    }

    @inline(__always)
    static func willCall(_ function: StaticString) {
        if let body = observer.withLock({ $0 }) { body(function) }
    }
}
