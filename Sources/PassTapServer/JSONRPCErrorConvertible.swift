public import PassTapProtocol

/// An error that knows which JSON-RPC error a client should get for it.
public protocol JSONRPCErrorConvertible: Error {
    /// The error object to send in the response.
    var jsonRPCError: JSONRPCError { get }
}
