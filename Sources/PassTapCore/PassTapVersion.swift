/// The version of PassTap, reported by `passtapd --version`, `passtap --version` and `status`.
public enum PassTapVersion {
    /// Semantic version of this build.
    public static let string = "0.3.1"
}
