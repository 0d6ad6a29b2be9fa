import Foundation
import SwiftData
import Testing

@Model final class Library {
    #Unique<Library>([\.city, \.name])
    @Attribute(.unique, originalName: "title") var name: String
    var city: String
    var opened: Date?
    var shelves = 3
    @Relationship(deleteRule: .cascade, inverse: \Volume.library) var volumes: [Volume] = []
    init(name: String, city: String) {
        self.name = name
        self.city = city
    }
}

@Model final class Volume {
    var title: String
    var library: Library?
    init(title: String) { self.title = title }
}

/// The schema as SwiftData code reads it: entities by name, their attributes and relationships,
/// with names, options, delete rules and inverses.
@Suite struct SchemaIntrospectionTests {
    @Test func entitiesListTheirAttributesRelationshipsAndUniquenessConstraints() throws {
        let schema = Schema([Library.self])
        #expect(Set(schema.entitiesByName.keys) == ["Library", "Volume"])
        let library = try #require(schema.entitiesByName["Library"])
        #expect(Set(library.attributes.map(\.name)) == ["name", "city", "opened", "shelves"])
        let name = try #require(library.attributes.first { $0.name == "name" })
        #expect(name.isUnique)
        #expect(name.originalName == "title")
        #expect(ObjectIdentifier(name.valueType) == ObjectIdentifier(String.self))
        #expect(!name.isOptional)
        let opened = try #require(library.attributes.first { $0.name == "opened" })
        #expect(opened.isOptional)
        #expect(ObjectIdentifier(opened.valueType) == ObjectIdentifier(Date?.self))
        #expect(library.attributes.first { $0.name == "shelves" }?.defaultValue as? Int == 3)
        #expect(library.uniquenessConstraints == [["city", "name"]])

        let volumes = try #require(library.relationships.first)
        #expect(library.relationships.count == 1)
        #expect(volumes.name == "volumes")
        #expect(volumes.destination == "Volume")
        #expect(volumes.deleteRule == .cascade)
        #expect(volumes.inverseName == "library")
        #expect(!volumes.isToOneRelationship)
        let back = try #require(schema.entitiesByName["Volume"]?.relationships.first)
        #expect(back.name == "library" && back.destination == "Library" && back.isToOneRelationship)
        #expect(back.deleteRule == .nullify)
        #expect(back.inverseName == "volumes", "inferred from the other side")
    }
}
