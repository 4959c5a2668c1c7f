/// The version of the socket protocol described in `docs/socket-api.md`, reported by `status` as
/// `protocol`.
///
/// It goes up when a change could break a client written against the previous version (a
/// method, field or meaning removed or changed). Adding methods, fields, event kinds or error
/// codes does not change it: clients ignore what they do not know.
public let PassTapProtocolVersion: Int = 1
