extension Schema {
    /// The indexes `#Index` declares on a model, as SwiftData describes them.
    ///
    /// Both kinds become an ordinary (B-tree) index of their columns, on SQLite and PostgreSQL.
    /// An R-tree is not made: SQLite's is a virtual table of its own, and PostgreSQL's (GiST)
    /// indexes geometric types, so neither can index a model's columns in place. The B-tree
    /// index still serves equality and range tests on its first column.
    public final class Index<T>: SchemaProperty, Codable, CustomDebugStringConvertible, @unchecked Sendable
    where T: PersistentModel {
        // Unchecked: immutable key paths.

        /// What kind of index a group of key paths makes.
        public enum Types<P> where P: PersistentModel {
            /// An ordinary index, for equality, range tests and sorting.
            case binary([PartialKeyPath<P>])
            /// A spatial index in SwiftData; an ordinary one here (see ``Schema/Index``).
            case rtree([PartialKeyPath<P>])

            /// The kind's name, as descriptions and encoded schemas spell it.
            var kind: String {
                if case .rtree = self { return "rtree" }
                return "binary"
            }

            /// The key paths the index covers.
            var keyPaths: [PartialKeyPath<P>] {
                switch self {
                case .binary(let keyPaths), .rtree(let keyPaths): keyPaths
                }
            }
        }

        /// The indexes, in the order given.
        public let indices: [Schema.Index<T>.Types<T>]

        /// Indexes of the given kinds: `Schema.Index<Trip>(.binary([\.name]), .rtree([\.latitude, \.longitude]))`.
        public init(_ indices: Schema.Index<T>.Types<T>...) { self.indices = indices }

        /// Ordinary indexes, one per array of key paths.
        public init(_ binaryIndices: [PartialKeyPath<T>]...) { indices = binaryIndices.map { .binary($0) } }

        /// The key paths of each index, for the `@Model` macro's generated code.
        public var _modelKitKeyPaths: [[AnyKeyPath]] { indices.map { $0.keyPaths } }

        public var name: String { get { "" } set {} }
        public var originalName: String { get { "" } set {} }
        public var valueType: any Any.Type { T.self }
        public var isAttribute: Bool { false }
        public var isRelationship: Bool { false }
        public var isOptional: Bool { false }
        public var isTransient: Bool { false }
        public var isUnique: Bool { false }

        public var debugDescription: String {
            "Index<\(T.self)>(\(indices.map { "\($0.kind)(\(SchemaKeyPathNames.names(of: $0.keyPaths)))" }))"
        }

        public static func == (lhs: Index, rhs: Index) -> Bool {
            lhs.indices.map(\.kind) == rhs.indices.map(\.kind) && lhs.indices.map(\.keyPaths) == rhs.indices.map(\.keyPaths)
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(indices.map(\.keyPaths)) }

        /// The coding keys of an encoded index.
        public enum CodingKeys: String, CodingKey { case indices }

        private struct Encoded: Codable {
            let kind: String
            let properties: [String]
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            indices = try container.decode([Encoded].self, forKey: .indices).map { encoded in
                let keyPaths = try SchemaKeyPathNames.keyPaths(of: T.self, named: encoded.properties, codingPath: container.codingPath)
                return encoded.kind == "rtree" ? .rtree(keyPaths) : .binary(keyPaths)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(
                indices.map { Encoded(kind: $0.kind, properties: SchemaKeyPathNames.names(of: $0.keyPaths)) },
                forKey: .indices)
        }
    }

    /// The groups of properties `#Unique` keeps unique together, as SwiftData describes them.
    public final class Unique<T>: SchemaProperty, Codable, CustomDebugStringConvertible, @unchecked Sendable
    where T: PersistentModel {
        // Unchecked: immutable key paths.

        /// The groups, one per array of key paths.
        public let constraints: [[PartialKeyPath<T>]]

        /// Constraints on the given groups: `Schema.Unique<Trip>([\.name, \.start])`.
        public init(_ constraints: [PartialKeyPath<T>]...) { self.constraints = constraints }

        public var name: String { get { "" } set {} }
        public var originalName: String { get { "" } set {} }
        public var valueType: any Any.Type { T.self }
        public var isAttribute: Bool { false }
        public var isRelationship: Bool { false }
        public var isOptional: Bool { false }
        public var isTransient: Bool { false }
        public var isUnique: Bool { true }

        public var debugDescription: String { "Unique<\(T.self)>(\(constraints.map(SchemaKeyPathNames.names(of:))))" }

        public static func == (lhs: Unique, rhs: Unique) -> Bool { lhs.constraints == rhs.constraints }

        public func hash(into hasher: inout Hasher) { hasher.combine(constraints) }

        /// The coding keys of encoded constraints.
        public enum CodingKeys: String, CodingKey { case constraints }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            constraints = try container.decode([[String]].self, forKey: .constraints).map {
                try SchemaKeyPathNames.keyPaths(of: T.self, named: $0, codingPath: container.codingPath)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(constraints.map(SchemaKeyPathNames.names(of:)), forKey: .constraints)
        }
    }
}

/// Key paths of a model by their properties' names, and back: how indexes and constraints
/// travel in an encoded schema.
enum SchemaKeyPathNames {
    static func names<Model: PersistentModel>(of keyPaths: [PartialKeyPath<Model>]) -> [String] {
        let metadata = Model.schemaMetadata
        return keyPaths.map { keyPath in metadata.first { $0.keyPath == keyPath }?.name ?? "\(keyPath)" }
    }

    static func keyPaths<Model: PersistentModel>(
        of _: Model.Type, named names: [String], codingPath: [any CodingKey]
    ) throws -> [PartialKeyPath<Model>] {
        let metadata = Model.schemaMetadata
        return try names.map { name in
            guard let keyPath = metadata.first(where: { $0.name == name })?.keyPath as? PartialKeyPath<Model> else {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(Model.self) has no persisted property \(name)"))
            }
            return keyPath
        }
    }
}
