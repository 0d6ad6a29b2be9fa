/// What one ``SyncClient/sync()`` did.
public struct SyncReport: Sendable, Equatable {
    /// Local changes (rows) the server accepted.
    public var pushed: Int
    /// Server changes (rows) applied to the device's store.
    public var pulled: Int
    /// Pushed fields that met a concurrent change and were resolved by a rule.
    public var conflicts: Int
    /// Pushed row changes the server refused (see ``rejections``).
    public var rejected: Int { rejections.count }
    /// Each pushed row change the server refused, and why. The device's row is back to the
    /// server's state; the rejection keeps what was pushed. The device keeps refusals until a
    /// sync completes, so those of a sync that failed after its push was answered come with the
    /// next one.
    public var rejections: [SyncRejection]

    public init(pushed: Int = 0, pulled: Int = 0, conflicts: Int = 0, rejections: [SyncRejection] = []) {
        self.pushed = pushed
        self.pulled = pulled
        self.conflicts = conflicts
        self.rejections = rejections
    }
}
