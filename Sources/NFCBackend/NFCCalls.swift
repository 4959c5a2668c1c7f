internal import CNFC
import Synchronization

/// The one chokepoint every libnfc call that returns a status goes through: it runs the call
/// (which may block: only ever on a PassTap-owned thread) and turns a negative result into an
/// ``NFCError`` naming the function, in libnfc's words.
@inline(__always)
@discardableResult
func nfc(_ function: StaticString, _ device: OpaquePointer, _ call: () -> Int32) throws(NFCError) -> Int32 {
    NFCCalls.willCall(function)
    let result = call()
    guard result < 0 else { return result }
    throw NFCError(code: NFCError.Code(result), function: function, message: String(cString: nfc_strerror(device)))
}

/// The chokepoint's seam, and the lock for libnfc's process-wide calls.
package enum NFCCalls {
    private static let observer = Mutex<(@Sendable (StaticString) -> Void)?>(nil)
    /// `nfc_init`, `nfc_exit` and `nfc_list_devices`, and `nfc_open`/`nfc_close` of a USB device,
    /// touch libnfc's and libusb-0.1's global state (log set-up, the USB bus list), which is not
    /// thread-safe: they run one at a time across all device threads. A serial open (which can
    /// block for a second on a board that does not answer) takes no lock.
    private static let setup = Mutex(())
    /// The calls a test made fail (``failing(_:)``).
    private static let failures = Mutex<Set<String>>([])

    /// Sets (or, with `nil`, clears) an observer told of every libnfc call before it is made, on
    /// the calling thread (tests check that every call runs on a thread the backend owns).
    package static func observe(_ body: (@Sendable (StaticString) -> Void)?) {
        observer.withLock { $0 = body }
    }

    /// Makes every later call of `functions` fail as libnfc fails it, until called again without
    /// them: the chokepoint's fault-injection seam. Only `nfc_init` heeds it for now (it then
    /// gives no context, as when libnfc cannot allocate one).
    package static func failing(_ functions: Set<String>) {
        failures.withLock { $0 = functions }
    }

    /// Whether a test made `function` fail (``failing(_:)``).
    static func mustFail(_ function: StaticString) -> Bool {
        failures.withLock { !$0.isEmpty && $0.contains("\(function)") }
    }

    @inline(__always)
    static func willCall(_ function: StaticString) {
        if let body = observer.withLock({ $0 }) { body(function) }
    }

    /// Runs one of libnfc's process-wide calls under the set-up lock (unless `locked` is false).
    static func setupCall<T>(_ function: StaticString, locked: Bool = true, _ call: () -> T) -> T {
        willCall(function)
        guard locked else { return call() }
        return setup.withLock { _ in call() }
    }
}
