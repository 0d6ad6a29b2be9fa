/// How the server resolves a property pushed by a device whose base value is no longer the
/// server's: another device's push, or the server's own code, changed it since.
public enum SyncPolicy<Value>: Sendable {
    /// The later edit wins, by ``HybridLogicalClock``: the default. A device offline for a
    /// week keeps its edits' week-old times, and loses to newer ones.
    case lastEditWins
    /// The server's value stays; the conflicting push loses.
    case serverWins
    /// The app's function of the base, server and incoming values decides. It runs on the
    /// server; make it deterministic, so every server instance decides alike.
    case custom(@Sendable (SyncConflict<Value>) -> Value)
}

/// A conflict a ``SyncPolicy/custom(_:)`` rule resolves.
public struct SyncConflict<Value> {
    /// What the pushing device last had from the server for the property; nil if never (the
    /// device created the row, or the property).
    public let base: Value?
    /// The server's value now.
    public let server: Value
    /// The pushing device's value.
    public let incoming: Value

    public init(base: Value?, server: Value, incoming: Value) {
        self.base = base
        self.server = server
        self.incoming = incoming
    }
}

extension SyncConflict: Sendable where Value: Sendable {}
