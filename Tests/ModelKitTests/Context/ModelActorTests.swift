import Foundation
@testable import ModelKit
import Testing

@ModelActor
actor Importer {
    func importItems(_ titles: [String]) throws -> [PersistentIdentifier] {
        let items = titles.map { TodoItem(title: $0) }
        for item in items { modelContext.insert(item) }
        try modelContext.save()
        return items.map(\.persistentModelID)
    }

    func title(of identifier: PersistentIdentifier) -> String? {
        self[identifier, as: TodoItem.self]?.title
    }
}

@Suite struct ModelActorTests {
    @Test func aModelActorWorksOffTheMainActorWithItsOwnContext() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let importer = Importer(modelContainer: container)
        #expect(importer.modelContainer === container)
        let identifiers = try await importer.importItems(["a", "b", "c"])
        #expect(identifiers.allSatisfy { !$0.isTemporary })
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<TodoItem>()) == 3)
        #expect(await importer.title(of: identifiers[1]) == "b")
        let elsewhere = Importer(modelContainer: container)
        #expect(await elsewhere.title(of: identifiers[2]) == "c")
    }
}

/// A model actor conformed by hand, as SwiftData declares the protocol.
actor HandWrittenImporter: ModelActor {
    nonisolated let modelExecutor: any ModelExecutor
    nonisolated let modelContainer: ModelContainer
    init(modelContainer: ModelContainer) {
        modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
        self.modelContainer = modelContainer
    }
    func runsOnItsExecutor() -> Bool { (modelExecutor as? DefaultSerialModelExecutor)?.isCurrent == true }
}

extension Importer {
    func runsOnItsExecutor() -> Bool { (modelExecutor as? DefaultSerialModelExecutor)?.isCurrent == true }
}

@Suite struct ModelExecutorTests {
    @Test func modelActorsRunOnTheirOwnExecutorsQueueNotOnACooperativeThread() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let handWritten = HandWrittenImporter(modelContainer: container)
        let macro = Importer(modelContainer: container)
        #expect(await handWritten.runsOnItsExecutor())
        #expect(await macro.runsOnItsExecutor())
        #expect((handWritten.modelExecutor as? DefaultSerialModelExecutor)?.isCurrent == false)
    }

    @Test func twoActorsHaveTwoExecutorsAndTwoContexts() async throws {
        let container = try inMemoryContainer(for: TodoItem.self)
        let first = Importer(modelContainer: container)
        let second = Importer(modelContainer: container)
        #expect(first.modelExecutor !== second.modelExecutor)
        #expect(first.modelExecutor.modelContext !== second.modelExecutor.modelContext)
    }
}
