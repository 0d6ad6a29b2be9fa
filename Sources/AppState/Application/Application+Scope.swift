extension Application {
    /// Where a registered value lives: a feature name and an id, joined into the cache key
    /// `"feature/id"`.
    public struct Scope: Hashable, Sendable {
        /// The feature that owns the value (`"App"` unless given).
        public let name: String
        /// The value's id within its feature.
        public let id: String

        /// Creates a scope for `id` within the feature `name`.
        public init(name: String, id: String) {
            self.name = name
            self.id = id
        }

        /// The cache key, `"name/id"`.
        public var key: String { "\(name)/\(id)" }

        /// The scope of a value registered without an explicit id: its definer's call site.
        static func codeLocation(
            fileID: StaticString, function: StaticString, line: Int, column: Int
        ) -> Scope {
            Scope(name: "App", id: "\(fileID)[\(function)@\(line):\(column)]")
        }
    }
}
