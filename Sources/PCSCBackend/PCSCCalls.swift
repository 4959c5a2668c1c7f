internal import CPCSCLite

/// The one chokepoint every pcsc-lite call goes through: it runs the call (which may block: only
/// ever on a PassTap-owned thread) and turns a return code other than `SCARD_S_SUCCESS` into a
/// ``PCSCError`` naming the function.
@inline(__always)
func pcsc(_ function: StaticString, _ call: () -> LONG) throws(PCSCError) {
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
