import Foundation

/// Schemas built by hand, compared, encoded, saved and loaded, as in SwiftData.
///
/// A decoded or hand-built schema describes models; it has no model classes, so a container
/// refuses it (``ModelKitError/invalidSchema(entity:reason:)``). Make a container's schema of the
/// `@Model` classes.
extension Schema: Codable, Hashable {
    /// An empty schema.
    public convenience init() {
        self.init(entities: [], version: Version(1, 0, 0))
    }

    /// A schema of `entities` and their subentities. Entities of model classes (from another
    /// schema) make the schema of those classes; entities built by hand make a schema that
    /// describes them.
    public convenience init(_ entities: Schema.Entity..., version: Schema.Version) {
        if entities.allSatisfy(\.hasModelClass) {
            self.init(entities.map(\.type), version: version)
        } else {
            var all: [Schema.Entity] = []
            func visit(_ entity: Schema.Entity) {
                guard !all.contains(where: { $0 === entity }) else { return }
                all.append(entity)
                entity.directSubentities.forEach(visit)
            }
            entities.forEach(visit)
            self.init(entities: all, version: version)
        }
    }

    private enum CodingKeys: String, CodingKey { case version, encodingVersion, entities }

    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let encodingVersion = try container.decode(Version.self, forKey: .encodingVersion)
        guard encodingVersion.major == Schema.schemaEncodingVersion.major else {
            throw DecodingError.dataCorruptedError(
                forKey: .encodingVersion, in: container,
                debugDescription: "the schema was encoded in format \(encodingVersion); this ModelKit reads \(Schema.schemaEncodingVersion.major).x")
        }
        let entities = try container.decode([Entity].self, forKey: .entities)
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for entity in entities {
            guard let name = entity.decodedSuperentityName else { continue }
            guard let superentity = byName[name] else {
                throw DecodingError.dataCorruptedError(
                    forKey: .entities, in: container, debugDescription: "\(entity.name)'s superentity \(name) is not in the schema")
            }
            entity.superentity = superentity
            superentity.directSubentities.append(entity)
        }
        self.init(
            entities: entities, version: try container.decode(Version.self, forKey: .version), encodingVersion: encodingVersion)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(Schema.schemaEncodingVersion, forKey: .encodingVersion)
        try container.encode(entities, forKey: .entities)
    }

    /// Writes the schema to `url` as JSON.
    public func save(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }

    /// The schema ``save(to:)`` wrote to `url`.
    public static func load(from url: URL) throws -> Schema {
        try JSONDecoder().decode(Schema.self, from: Data(contentsOf: url))
    }

    /// Schemas are equal when they have the same version and equal entities.
    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs === rhs || (lhs.version == rhs.version && lhs.entitiesByName == rhs.entitiesByName)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(version)
        hasher.combine(Set(entitiesByName.keys))
    }
}

extension Schema.Entity: Codable {
    private enum CodingKeys: String, CodingKey { case name, superentityName, properties, uniquenessConstraints, indices }

    public convenience init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let properties = try container.decode([EncodedSchemaProperty].self, forKey: .properties).map(\.property)
        self.init(try container.decode(String.self, forKey: .name), subentities: [], properties: properties)
        decodedSuperentityName = try container.decodeIfPresent(String.self, forKey: .superentityName)
        describedUniqueness = try container.decode([[String]].self, forKey: .uniquenessConstraints)
        describedIndices = try container.decode([[String]].self, forKey: .indices)
    }

    /// Encodes the entity's own properties (not those it inherits) and its superentity's name.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(superentityName, forKey: .superentityName)
        let own = hasModelClass ? ownProperties.indices.map(describeProperty) : properties
        try container.encode(try own.map { try EncodedSchemaProperty($0, codingPath: container.codingPath) }, forKey: .properties)
        try container.encode(uniquenessConstraints, forKey: .uniquenessConstraints)
        try container.encode(indices, forKey: .indices)
    }
}

/// One property of an encoded entity, with its kind, so that it decodes as the class it was.
private struct EncodedSchemaProperty: Codable {
    let property: any SchemaProperty

    private enum Kind: String, Codable { case attribute, composite, relationship }
    private enum CodingKeys: String, CodingKey { case kind, property }

    init(_ property: any SchemaProperty, codingPath: [any CodingKey]) throws {
        guard property is Schema.Attribute || property is Schema.Relationship else {
            throw EncodingError.invalidValue(
                property, .init(codingPath: codingPath, debugDescription: "a schema encodes Schema.Attribute and Schema.Relationship properties, not \(type(of: property))"))
        }
        self.property = property
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        property =
            switch try container.decode(Kind.self, forKey: .kind) {
            case .attribute: try container.decode(Schema.Attribute.self, forKey: .property)
            case .composite: try container.decode(Schema.CompositeAttribute.self, forKey: .property)
            case .relationship: try container.decode(Schema.Relationship.self, forKey: .property)
            }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let kind: Kind = property is Schema.Relationship ? .relationship : property is Schema.CompositeAttribute ? .composite : .attribute
        try container.encode(kind, forKey: .kind)
        try container.encode(property, forKey: .property)
    }
}
