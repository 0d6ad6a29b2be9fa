import Foundation
import ModelKit
import Testing

enum Described {
    @Model final class Shelf {
        #Index<Shelf>(.binary([\.label]), .rtree([\.x, \.y]))
        #Unique<Shelf>([\.label, \.room])
        @Attribute(.unique, originalName: "title") var label: String
        var room = "hall"
        var x = 0.0
        var y = 0.0
        var note: String?
        @Attribute(.ephemeral) var highlighted = false
        @Relationship(deleteRule: .cascade, inverse: \Book.shelf) var books: [Book] = []
        init(label: String) { self.label = label }
    }

    @Model final class Book {
        var title: String
        var shelf: Shelf?
        init(title: String) { self.title = title }
    }

    @Model class Volume {
        var title: String
        init(title: String) { self.title = title }
    }

    @Model class Novel: Volume {
        var pages = 0
        init(title: String, pages: Int) {
            self.pages = pages
            super.init(title: title)
        }
    }

    /// A model written by hand with SwiftData's metadata initializer, not `@Model`'s.
    @Model final class Card {
        var text: String
        init(text: String) { self.text = text }
    }
}

/// SwiftData's description of a schema: entities, attributes and relationships as Apple's
/// classes, schemas built by hand, encoded, saved and loaded.
@Suite struct SchemaDescriptionTests {
    let schema = Schema([Described.Shelf.self])

    var shelf: Schema.Entity { schema.entitiesByName["Shelf"]! }

    @Test func anEntityDescribesEachPropertyAsAnAttributeOrARelationship() throws {
        #expect(shelf.properties.map(\.name) == ["label", "room", "x", "y", "note", "highlighted", "books"])
        let label = try #require(shelf.attributesByName["label"])
        #expect(label.isUnique && label.originalName == "title" && label.valueType == String.self && !label.isOptional)
        #expect(shelf.attributesByName["room"]?.defaultValue as? String == "hall")
        #expect(shelf.attributesByName["room"]?.originalName == "room")
        #expect(shelf.attributesByName["note"]?.isOptional == true)
        #expect(shelf.attributesByName["highlighted"]?.isTransient == true)
        let books = try #require(shelf.relationshipsByName["books"])
        #expect(books.destination == "Book" && books.inverseName == "shelf" && books.deleteRule == .cascade)
        #expect(!books.isToOneRelationship && books.keypath == \Described.Shelf.books && books.valueType == [Described.Book].self)
        let back = try #require(schema.entitiesByName["Book"]?.relationshipsByName["shelf"])
        #expect(back.isToOneRelationship && back.isOptional && back.destination == "Shelf")
        #expect(shelf.storedProperties.map(\.name) == ["label", "room", "x", "y", "note", "books"])
        #expect(shelf.storedPropertiesByName["highlighted"] == nil && shelf.inheritedProperties.isEmpty)
    }

    @Test func binaryAndRTreeIndexKindsBecomeOrdinaryIndexesOfTheirColumns() throws {
        #expect(shelf.indices == [["label"], ["x", "y"]])
        #expect(shelf.uniquenessConstraints == [["label", "room"]])
        let store = try TemporaryStore()
        _ = try store.container(for: Described.Shelf.self)
        let indexes = try store.sql("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Shelf' ORDER BY name")
        #expect(indexes.flatMap { $0 }.contains(#"CREATE INDEX "Shelf_x_y_index" ON "Shelf" ("x", "y")"#))
        let index = Schema.Index<Described.Shelf>(.binary([\.label]), .rtree([\.x, \.y]))
        let decoded = try JSONDecoder().decode(Schema.Index<Described.Shelf>.self, from: JSONEncoder().encode(index))
        #expect(decoded == index && decoded.debugDescription == "Index<Shelf>([\"binary([\\\"label\\\"])\", \"rtree([\\\"x\\\", \\\"y\\\"])\"])")
        let unique = Schema.Unique<Described.Shelf>([\.label, \.room])
        #expect(try JSONDecoder().decode(Schema.Unique<Described.Shelf>.self, from: JSONEncoder().encode(unique)) == unique)
    }

    @Test func settingADescriptionsMemberChangesThatDescriptionNotTheSchema() throws {
        let label = try #require(shelf.attributesByName["label"])
        label.name = "renamed"
        label.defaultValue = "x"
        #expect(shelf.attributesByName["label"]?.name == "label")
        #expect(shelf.attributesByName["label"]?.defaultValue == nil)
    }

    @Test func twoSchemasOfTheSameModelsAreEqualAndOthersAreNot() {
        #expect(Schema([Described.Shelf.self]) == schema)
        #expect(Schema([Described.Shelf.self]).hashValue == schema.hashValue)
        #expect(Schema([Described.Shelf.self], version: Schema.Version(2, 0, 0)) != schema)
        #expect(Schema([Described.Card.self]) != schema)
        #expect(Schema().entities.isEmpty)
    }

    @Test func aSchemaSavedToAFileLoadsBackEqual() throws {
        let store = try TemporaryStore()
        let file = store.directory.appendingPathComponent("schema.json")
        try schema.save(to: file)
        let loaded = try Schema.load(from: file)
        #expect(loaded.encodingVersion == Schema.schemaEncodingVersion)
        #expect(loaded.entities.map(\.name) == ["Shelf", "Book"])
        #expect(loaded.entitiesByName["Shelf"]?.properties.map(\.name) == shelf.properties.map(\.name))
        #expect(loaded.entitiesByName["Shelf"] == shelf)
        #expect(loaded == schema)
        #expect(loaded.entitiesByName["Shelf"]?.attributesByName["label"]?.options == [.unique])
        #expect(loaded.entitiesByName["Shelf"]?.relationshipsByName["books"]?.deleteRule == .cascade)
        #expect(loaded.entitiesByName["Shelf"]?.indices == [["label"], ["x", "y"]])
    }

    @Test func aSchemaFromAnotherFormatOrWithAnUnknownTypeIsRefusedWithTheReason() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(schema), as: UTF8.self)
        let newer = text.replacingOccurrences(of: #""encodingVersion":{"major":1"#, with: #""encodingVersion":{"major":9"#)
        #expect(newer != text)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Schema.self, from: Data(newer.utf8)) }
        let mangled = try #require(_mangledTypeName(String.self))
        let unknown = text.replacingOccurrences(of: "\"\(mangled)\"", with: #""NotAType""#)
        #expect(unknown != text)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Schema.self, from: Data(unknown.utf8)) }
    }

    @Test func aHandBuiltSchemaDescribesItsEntitiesAndAContainerRefusesIt() throws {
        let title = Schema.Attribute(name: "title", options: [.unique], valueType: String.self)
        let pages = Schema.Attribute(name: "pages", valueType: Int?.self, defaultValue: 0)
        let novel = Schema.Entity("Novel", properties: pages)
        let book = Schema.Entity("Volume", subentities: novel, properties: title)
        let built = Schema(book, version: Schema.Version(1, 0, 0))
        #expect(built.entities.map(\.name) == ["Volume", "Novel"])
        #expect(novel.superentity === book && novel.superentityName == "Volume" && book.subentities == [novel])
        #expect(novel.inheritedProperties.map(\.name) == ["title"])
        #expect(pages.isOptional && book.attributesByName["title"]?.isUnique == true)
        let decoded = try JSONDecoder().decode(Schema.self, from: JSONEncoder().encode(built))
        #expect(decoded == built && decoded.entitiesByName["Novel"]?.superentityName == "Volume")
        #expect(decoded.entitiesByName["Novel"]?.attributesByName["pages"]?.defaultValue as? Int? == 0)
        #expect {
            try ModelContainer(for: built, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
        } throws: { error in
            guard let error = error as? SwiftDataError, case .invalidSchema(let entity, let reason)? = error.underlying
            else { return false }
            return error == .loadIssueModelContainer && entity == "Volume" && reason.contains("no model class")
        }
    }

    @Test func aSubclassesEntityDescribesWhatItInheritsAndEncodesOnlyItsOwn() throws {
        let schema = Schema([Described.Novel.self])
        let novel = try #require(schema.entitiesByName["Novel"])
        #expect(novel.properties.map(\.name) == ["title", "pages"])
        #expect(novel.inheritedProperties.map(\.name) == ["title"])
        #expect(novel.inheritedPropertiesByName["title"]?.valueType == (String.self as Any.Type))
        let loaded = try JSONDecoder().decode(Schema.self, from: JSONEncoder().encode(schema))
        let described = try #require(loaded.entitiesByName["Novel"])
        #expect(described.superentityName == "Volume")
        #expect(described.properties.map(\.name) == ["pages"])
        #expect(described.inheritedProperties.map(\.name) == ["title"])
    }

    @Test func entitiesOfModelClassesMakeAWorkingSchema() throws {
        let rebuilt = Schema(shelf, version: Schema.Version(1, 0, 0))
        #expect(rebuilt == schema)
        let context = ModelContext(try ModelContainer(for: rebuilt, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)]))
        context.insert(Described.Shelf(label: "A"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Described.Shelf>()) == 1)
    }

    @Test func swiftDatasMetadataInitializerDescribesAStoredProperty() throws {
        let attribute = Schema.Attribute(.unique)
        let metadata = Schema.PropertyMetadata(name: "text", keypath: \Described.Card.text, defaultValue: "none", metadata: attribute)
        #expect(metadata.name == "text" && metadata.keyPath == \Described.Card.text && metadata.attribute === attribute)
        let notAModel = Schema.PropertyMetadata(name: "count", keypath: \String.count, defaultValue: nil, metadata: nil)
        #expect(ObjectIdentifier(notAModel.valueType) == ObjectIdentifier(Int.self))
    }

    @Test func aTombstoneIteratesItsPreservedValues() throws {
        let context = ModelContext(try inMemoryContainer(for: PreservedNote.self))
        let note = PreservedNote(title: "kept")
        context.insert(note)
        try context.save()
        context.delete(note)
        try context.save()
        let deletes = try context.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).flatMap(\.changes).compactMap { change in
            if case .delete(let delete) = change { return delete as? DefaultHistoryDelete<PreservedNote> }
            return nil
        }
        var iterator = try #require(deletes.first).tombstone.makeIterator()
        #expect(iterator.next() as? String == "kept")
        #expect(iterator.next() == nil)
    }
}

@Model final class PreservedNote {
    @Attribute(.preserveValueOnDeletion) var title: String
    var body = ""
    init(title: String) { self.title = title }
}
