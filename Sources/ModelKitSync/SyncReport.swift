/// What one ``SyncClient/sync()`` did.
public struct SyncReport: Sendable, Equatable {
    /// Local changes (rows) the server accepted.
    public var pushed: Int
    /// Server changes (rows) applied to the device's store.
    public var pulled: Int
    /// Pushed fields that met a concurrent change and were resolved by a rule.
    public var conflicts: Int

    public init(pushed: Int = 0, pulled: Int = 0, conflicts: Int = 0) {
        self.pushed = pushed
        self.pulled = pulled
        self.conflicts = conflicts
    }
}
