import Foundation
import ModelKit
import Testing

struct Unstorable { let value: Int }

@Model
final class HasUnstorable {
    var thing: Unstorable = Unstorable(value: 1)
    init() {}
}

@Suite struct ModelContainerTests {
    @Test func dataSurvivesANewContainerOnTheSameFile() throws {
        let store = try TemporaryStore()
        do {
            let context = ModelContext(try store.container(for: TodoItem.self))
            context.insert(TodoItem(title: "persisted", isComplete: true))
            try context.save()
        }
        let items = try ModelContext(try store.container(for: TodoItem.self)).fetch(FetchDescriptor<TodoItem>())
        #expect(items.map(\.title) == ["persisted"])
        #expect(items.first?.isComplete == true)
    }

    @Test func onDiskStoresUseWriteAheadLogging() throws {
        let store = try TemporaryStore()
        _ = try store.container(for: TodoItem.self)
        #expect(try store.sql("PRAGMA journal_mode") == [["wal"]])
    }

    @Test func inMemoryContainersAreSeparateAndSharedByTheirContexts() throws {
        let first = try inMemoryContainer(for: TodoItem.self)
        let second = try inMemoryContainer(for: TodoItem.self)
        let writer = ModelContext(first)
        writer.insert(TodoItem(title: "a"))
        try writer.save()
        #expect(try ModelContext(first).fetchCount(FetchDescriptor<TodoItem>()) == 1)
        #expect(try ModelContext(second).fetchCount(FetchDescriptor<TodoItem>()) == 0)
        #expect(first.configurations.first?.url.path == "/dev/null")
    }

    @Test func saveThrowsWhenTheConfigurationDisallowsSaving() throws {
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self, allowsSave: false))
        context.insert(TodoItem(title: "a"))
        #expect {
            try context.save()
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.saveNotAllowed = error else { return false }
            return "\(error)".contains("allowsSave: false")
        }
        #expect(context.hasChanges)
    }

    @Test func defaultStoreLivesInTheProgramsDataDirectory() {
        let configuration = ModelConfiguration()
        let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #expect(configuration.url.path.hasPrefix(support.path))
        #expect(configuration.url.lastPathComponent == "default.store")
        #expect(configuration.url.deletingLastPathComponent().lastPathComponent == ProcessInfo.processInfo.processName)
        #expect(ModelConfiguration("Notes").url.lastPathComponent == "Notes.store")
    }

    @Test func schemaOverloadAndDuplicateTypesGiveOneEntityEach() throws {
        let schema = Schema([TodoItem.self, Note.self, TodoItem.self])
        #expect(schema.entities.map(\.name) == ["TodoItem", "Note"])
        let container = try ModelContainer(for: schema, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        #expect(container.schema.entities.count == 2)
    }

    @Test func unsupportedPropertyTypeIsATypedError() {
        #expect {
            _ = try inMemoryContainer(for: HasUnstorable.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.unsupportedPropertyType(let entity, let property, _) = error else { return false }
            return entity == "HasUnstorable" && property == "thing"
        }
    }

    @Test @MainActor func mainContextIsOneContextWithAutosave() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let main = container.mainContext
        #expect(main === container.mainContext)
        #expect(main.autosaveEnabled)
        #expect(!ModelContext(container).autosaveEnabled)
        main.insert(TodoItem(title: "autosaved"))
        #expect(main.hasChanges)
        for _ in 0..<100 where main.hasChanges {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!main.hasChanges)
        #expect(try ModelContext(container).fetch(FetchDescriptor<TodoItem>()).map(\.title) == ["autosaved"])
    }

    @Test @MainActor func aFailedAutosaveIsLoggedAtErrorLevel() async throws {
        let log = CapturedModelKitLog()
        let container = try inMemoryContainer(for: TodoItem.self, allowsSave: false)
        container.mainContext.insert(TodoItem(title: "cannot be saved"))
        for _ in 0..<100 where log.messages(at: .error).isEmpty {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(log.messages(at: .error).contains { $0.contains("autosave") && $0.contains("allowsSave: false") })
    }

    @Test func containerIsSendable() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let count = try await Task.detached {
            let context = ModelContext(container)
            context.insert(TodoItem(title: "from another task"))
            try context.save()
            return try context.fetchCount(FetchDescriptor<TodoItem>())
        }.value
        #expect(count == 1)
    }
}

/// Two model types with one name, from different scopes.
enum FirstModule {
    @Model final class Duplicate {
        var a = 0
        init() {}
    }
}

enum SecondModule {
    @Model final class Duplicate {
        var b = ""
        init() {}
    }
}

@Suite struct ContainerValidationTests {
    @Test func twoModelTypesWithOneNameThrowAnInvalidSchemaNamingBoth() throws {
        #expect {
            try inMemoryContainer(for: FirstModule.Duplicate.self, SecondModule.Duplicate.self)
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.invalidSchema(let entity, let reason) = error else { return false }
            return entity == "Duplicate" && reason.contains("FirstModule.Duplicate") && reason.contains("SecondModule.Duplicate")
        }
    }

    @Test(arguments: ["../escape", "a/b", "..", ""])
    func aConfigurationNameThatIsNotAPlainFileNameIsRefused(name: String) throws {
        #expect {
            try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(name))
        } throws: { error in
            guard let error = modelKitError(error), case ModelKitError.invalidConfigurationName(let refused, _) = error else { return false }
            return refused == name
        }
    }
}
