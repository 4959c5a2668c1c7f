/// Whether three errors follow PassTap's equality policy (`docs/architecture.md`, "Errors: equal
/// by code"): `error` and `sameCode` (same code, other details) are equal and hash alike, and
/// `otherCode` differs from both.
public func followsEqualByCode<E: Hashable>(_ error: E, sameCode: E, otherCode: E) -> Bool {
    error == sameCode && error.hashValue == sameCode.hashValue && error != otherCode && sameCode != otherCode
}
