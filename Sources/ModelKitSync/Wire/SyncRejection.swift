/// A pushed row change the server refused. The rest of the push is applied; the device's row goes
/// back to the server's state (a new row the server never took goes from the device), and
/// ``change`` keeps what the device pushed, so that the app can show it or make it again.
///
/// ```swift
/// let report = try await client.sync()
/// for rejection in report.rejections where rejection.code == .uniqueConflict {
///     showAlert("\(rejection.entity) could not be saved: \(rejection.message)")
/// }
/// ```
public struct SyncRejection: Sendable, Codable, Equatable, CustomStringConvertible {
    /// Why the server refused a change. A struct rather than an enum, so that codes can be added.
    public struct Code: Hashable, Sendable, Codable, RawRepresentable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Another row already holds a value of a unique attribute the change sets.
        public static let uniqueConflict = Code(rawValue: "uniqueConflict")
        /// A value the server's store cannot hold, such as a string with a NUL character on
        /// PostgreSQL, or a value not of the property's type.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// The change is outside what the device's user may write (the server's ``SyncScopes``):
        /// the row as the server has it, or as the change would leave it, fails the model's
        /// write predicate, or the change points at a row the user may not read.
        public static let outOfScope = Code(rawValue: "outOfScope")
        /// The server failed applying the change for a reason of its own; its message says which.
        public static let serverFailed = Code(rawValue: "serverFailed")

        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        public var description: String { rawValue }
    }

    /// The row's model class name.
    public var entity: String
    /// The row's global identifier.
    public var id: String
    public var code: Code
    /// What was refused and why, for people.
    public var message: String
    /// What the device pushed for the row.
    public var change: SyncChange

    public init(entity: String, id: String, code: Code, message: String, change: SyncChange) {
        self.entity = entity
        self.id = id
        self.code = code
        self.message = message
        self.change = change
    }

    public var description: String { "\(entity) \(id): \(code): \(message)" }
}
