/// What a store keeps for one context's writes, as one value the context hands it: who writes
/// (the history's author, the statement trace), the inbox its own commits skip, and the context's
/// tie to the store, whose reader the store writes through where
/// ``Store/savesOnContextConnections``. The store alone chooses the connection.
struct StoreSession {
    let link: StoreLink
    let author: String?
    let trace: ((String) -> Void)?

    var inbox: ChangeInbox { link.inbox }

    /// The connection the context's writes run on, where the store writes on contexts' own
    /// connections; nil where they take turns at the store's writer.
    func writingReader() throws -> StoreReader? {
        link.store.savesOnContextConnections ? try link.reader(trace: trace) : nil
    }
}
