import Foundation
import ModelKit
import Testing

/// Successive versions of one entity, `Person`, as an app would ship them.
enum V1 {
    @Model final class Person {
        var name: String
        var nickname: String = ""
        init(name: String) { self.name = name }
    }
}

enum V2AddsOptionalAndDefaulted {
    @Model final class Person {
        var name: String
        var email: String?
        var score: Int = 7
        init(name: String) { self.name = name }
    }
}

enum V2RenamesName {
    @Model final class Person {
        @Attribute(originalName: "name") var fullName: String
        init(fullName: String) { self.fullName = fullName }
    }
}

enum V2AddsRequired {
    @Model final class Person {
        var name: String
        var age: Int
        init(name: String, age: Int) { self.name = name; self.age = age }
    }
}

enum V2ChangesType {
    @Model final class Person {
        var name: Int
        init(name: Int) { self.name = name }
    }
}

enum V2Unique {
    @Model final class Person {
        @Attribute(.unique) var name: String
        init(name: String) { self.name = name }
    }
}

@Model final class Pet {
    var name: String
    init(name: String) { self.name = name }
}

@Suite struct MigrationTests {
    /// A store holding two V1 people.
    func v1Store(names: [String] = ["Ada", "Grace"]) throws -> TemporaryStore {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: V1.Person.self))
        for name in names { context.insert(V1.Person(name: name)) }
        try context.save()
        return store
    }

    func expectIncompatible(_ store: TemporaryStore, _ type: any PersistentModel.Type, property: String) throws {
        let before = try store.sql("SELECT * FROM Person")
        #expect {
            _ = try store.container(for: type)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.incompatibleSchemaChange("Person", property, _) = error else { return false }
            return true
        }
        #expect(try store.sql("SELECT * FROM Person") == before)
        #expect(try ModelContext(try store.container(for: V1.Person.self)).fetchCount(FetchDescriptor<V1.Person>()) == 2)
    }

    @Test func newModelTypeCreatesItsTable() throws {
        let store = try v1Store()
        let container = try store.container(for: V1.Person.self, Pet.self)
        let context = ModelContext(container)
        context.insert(Pet(name: "Rex"))
        try context.save()
        #expect(try context.fetchCount(FetchDescriptor<Pet>()) == 1)
        #expect(try context.fetchCount(FetchDescriptor<V1.Person>()) == 2)
    }

    @Test func newOptionalOrDefaultedPropertyAddsItsColumn() throws {
        let store = try v1Store()
        let people = try ModelContext(try store.container(for: V2AddsOptionalAndDefaulted.Person.self))
            .fetch(FetchDescriptor<V2AddsOptionalAndDefaulted.Person>(sortBy: [SortDescriptor(\.name)]))
        #expect(people.map(\.name) == ["Ada", "Grace"])
        #expect(people.map(\.email) == [nil, nil])
        #expect(people.map(\.score) == [7, 7])
    }

    @Test func removedPropertyIsIgnored() throws {
        let store = try v1Store()
        let people = try ModelContext(try store.container(for: V2RenamesName.Person.self))
            .fetch(FetchDescriptor<V2RenamesName.Person>())
        #expect(people.count == 2)  // `nickname` is no longer declared; its column stays unused
        #expect(try store.sql("SELECT COUNT(nickname) FROM Person") == [["2"]])
    }

    @Test func originalNameRenamesTheColumn() throws {
        let store = try v1Store()
        let container = try store.container(for: V2RenamesName.Person.self)
        let people = try ModelContext(container).fetch(FetchDescriptor<V2RenamesName.Person>(sortBy: [SortDescriptor(\.fullName)]))
        #expect(people.map(\.fullName) == ["Ada", "Grace"])
        #expect(try store.sql("SELECT fullName FROM Person ORDER BY fullName") == [["Ada"], ["Grace"]])
        // Opening again finds the renamed column in place.
        #expect(try ModelContext(try store.container(for: V2RenamesName.Person.self)).fetchCount(FetchDescriptor<V2RenamesName.Person>()) == 2)
    }

    @Test func newRequiredPropertyWithoutDefaultOnATableWithRowsThrows() throws {
        try expectIncompatible(try v1Store(), V2AddsRequired.Person.self, property: "age")
    }

    @Test func newRequiredPropertyOnAnEmptyTableIsAdded() throws {
        let store = try v1Store(names: [])
        let context = ModelContext(try store.container(for: V2AddsRequired.Person.self))
        context.insert(V2AddsRequired.Person(name: "Lin", age: 30))
        try context.save()
        #expect(try context.fetch(FetchDescriptor<V2AddsRequired.Person>()).map(\.age) == [30])
    }

    @Test func changedTypeThrowsAndLeavesTheDataUntouched() throws {
        try expectIncompatible(try v1Store(), V2ChangesType.Person.self, property: "name")
    }

    @Test func propertyBecomingUniqueOverRepeatedValuesThrows() throws {
        try expectIncompatible(try v1Store(names: ["Ada", "Ada"]), V2Unique.Person.self, property: "name")
    }
}
