/// One reader a discovery source wants driven, as it hands it to the ``ReaderRegistry``.
public struct ReaderEntry: Sendable {
    /// The reader's id.
    public var id: ReaderID
    /// What the source found at ``id``: a PC/SC reader's name, a libnfc device's connection
    /// string. Another address at the same id is another device in the same place (a USB reader
    /// replugged gets a new device number): the reader is stopped and started anew.
    public var address: String
    /// Makes the port for one run of the reader's thread (called again after each restart).
    public var makePort: @Sendable () -> any ReaderPort

    /// An entry for reader `id` at `address`, opened through the ports `makePort` makes.
    public init(id: ReaderID, address: String, makePort: @escaping @Sendable () -> any ReaderPort) {
        self.id = id
        self.address = address
        self.makePort = makePort
    }
}
