extension Schema {
    /// One model type: its table and its persisted properties.
    public final class Entity: @unchecked Sendable, CustomStringConvertible {
        /// The entity's name, which is the class name and the table name.
        public let name: String
        /// The persisted properties, in column order.
        public let properties: [PropertyMetadata]
        let type: any PersistentModel.Type
        private let columnsByKeyPath: [AnyKeyPath: Int]

        init(_ type: any PersistentModel.Type) {
            self.type = type
            name = type.entityName
            properties = type.schemaMetadata
            columnsByKeyPath = Dictionary(
                properties.enumerated().map { ($0.element.keyPath, $0.offset) }, uniquingKeysWith: { first, _ in first })
        }

        /// The column index of the persisted property at `keyPath`, if there is one.
        func column(for keyPath: AnyKeyPath) -> Int? { columnsByKeyPath[keyPath] }

        /// The properties stored with `@Attribute(.unique)`.
        var uniqueProperties: [PropertyMetadata] { properties.filter(\.isUnique) }

        public var description: String { name }
    }
}
