public import PassTapCore
public import PassTapProtocol

extension ReaderCommandError: JSONRPCErrorConvertible {
    /// `unknownReader` -32002, `noCard` -32001, `readerUnavailable` -32003, `transport` -32004
    /// (with `data.code`), `shuttingDown` -32008, `notISODep` -32012, `cancelled` -32013.
    public var jsonRPCError: JSONRPCError {
        switch self {
        case .unknownReader: return JSONRPCError(.unknownReader, description)
        case .noCard: return JSONRPCError(.noCard, description)
        case .readerUnavailable: return JSONRPCError(.readerUnavailable, description)
        case .transport(let error): return JSONRPCError(.transportError, error.message, transportCode: error.code.rawValue)
        case .notISODep: return JSONRPCError(.notISODep, description)
        case .cancelled: return JSONRPCError(.cancelled, description)
        case .shuttingDown: return JSONRPCError(.shuttingDown, description)
        }
    }
}
