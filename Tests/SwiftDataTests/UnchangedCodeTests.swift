import Foundation
import SwiftData
import Testing

// Code as SwiftData code bases write it, compiled against `import SwiftData` alone: each test
// pins one thing such code does that must compile and behave as on Apple's platforms.

/// Properties whose types Swift infers from their default values.
@Model
final class Expense {
    var title = String()
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var amount = Decimal.zero
    var uuid = UUID()
    var count = 0
    var note: String?

    init(title: String, amount: Decimal) {
        self.title = title
        self.amount = amount
    }

    init() {}
}

/// A sendable query, as view models and actors pass descriptors across isolation domains.
enum ExpenseQuery: Sendable {
    case list(FetchDescriptor<Expense>)
}

@Suite struct UnchangedCodeTests {
    @Test func propertiesWithInferredTypesArePersisted() throws {
        let container = try ModelContainer(for: Expense.self, configurations: .init(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let lunch = Expense(title: "Lunch", amount: Decimal(string: "12.50")!)
        let uuid = lunch.uuid
        context.insert(lunch)
        context.insert(Expense())
        try context.save()

        let fresh = ModelContext(container)
        let expenses = try fresh.fetch(FetchDescriptor<Expense>(sortBy: [SortDescriptor(\.title)]))
        #expect(expenses.map(\.title) == ["", "Lunch"])
        #expect(expenses[1].amount == Decimal(string: "12.50"))
        #expect(expenses[1].uuid == uuid)
        #expect(expenses[0].date == Date(timeIntervalSinceReferenceDate: 0))
        #expect(expenses[0].amount == .zero)
        #expect(expenses[0].uuid != uuid)
        let expensive = try fresh.fetch(FetchDescriptor<Expense>(predicate: #Predicate { $0.amount > 10 }))
        #expect(expensive.map(\.title) == ["Lunch"])
    }

    @Test func fetchDescriptorIsSendable() async throws {
        let container = try ModelContainer(for: Expense.self, configurations: .init(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Expense(title: "Taxi", amount: 30))
        try context.save()
        let query = ExpenseQuery.list(FetchDescriptor(predicate: #Predicate { $0.title == "Taxi" }))
        let titles = try await Task.detached {
            guard case .list(let descriptor) = query else { return [String]() }
            return try ModelContext(container).fetch(descriptor).map(\.title)
        }.value
        #expect(titles == ["Taxi"])
    }

    @Test func containerInitializersTakeImplicitMemberConfigurations() throws {
        let byTypes = try ModelContainer(for: Expense.self, configurations: .init(isStoredInMemoryOnly: true))
        let bySchema = try ModelContainer(for: Schema([Expense.self]), configurations: .init(isStoredInMemoryOnly: true))
        let withPlan = try ModelContainer(
            for: Expense.self, migrationPlan: nil, configurations: .init(isStoredInMemoryOnly: true))
        let several = try ModelContainer(
            for: Schema([Expense.self]), configurations: .init("a", isStoredInMemoryOnly: true))
        for container in [byTypes, bySchema, withPlan, several] {
            let inMemory = container.configurations.map(\.isStoredInMemoryOnly)
            #expect(inMemory == [true])
            let context = ModelContext(container)
            context.insert(Expense())
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 1)
        }
        let array: [ModelConfiguration] = [.init(isStoredInMemoryOnly: true)]
        let fromArray = try ModelContainer(for: Schema([Expense.self]), configurations: array)
        #expect(fromArray.configurations.count == 1)
    }

    @Test func deleteAllDataIsCalledWithoutTry() throws {
        let container = try ModelContainer(for: Expense.self, configurations: .init(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        context.insert(Expense())
        try context.save()
        container.deleteAllData()
        #expect(try context.fetchCount(FetchDescriptor<Expense>()) == 0)
    }
}

/// A model actor written by hand, as SwiftData declares the protocol.
actor NotesActor: ModelActor {
    nonisolated let modelExecutor: any ModelExecutor
    nonisolated let modelContainer: ModelContainer
    init(modelContainer: ModelContainer) {
        modelExecutor = DefaultSerialModelExecutor(modelContext: ModelContext(modelContainer))
        self.modelContainer = modelContainer
    }
    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Note>()) }

    func add(_ title: String) throws -> PersistentIdentifier {
        let note = Note(title: title, code: title)
        modelContext.insert(note)
        try modelContext.save()
        return note.persistentModelID
    }
}

/// The same actor through the macro.
@ModelActor
actor NotesMacroActor {
    func count() throws -> Int { try modelContext.fetchCount(FetchDescriptor<Note>()) }
    func title(of identifier: PersistentIdentifier) -> String? { self[identifier, as: Note.self]?.title }
}

@Suite struct HandWrittenModelActorTests {
    @Test func aHandWrittenModelActorBehavesLikeAMacroOne() async throws {
        let container = try ModelContainer(for: Note.self, configurations: .init(isStoredInMemoryOnly: true))
        let handWritten = NotesActor(modelContainer: container)
        let macro = NotesMacroActor(modelContainer: container)
        #expect(try await handWritten.count() == 0)
        let identifier = try await handWritten.add("Buy milk")
        #expect(try await handWritten.count() == 1)
        #expect(try await macro.count() == 1)
        #expect(await macro.title(of: identifier) == "Buy milk")
        #expect(macro.modelExecutor is DefaultSerialModelExecutor)
        #expect(handWritten.modelContainer === container)
    }

    @Test func manyModelActorsSavingAtOnceLoseNoWrite() async throws {
        let container = try ModelContainer(for: Note.self, configurations: .init(isStoredInMemoryOnly: true))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    let actor = NotesActor(modelContainer: container)
                    for index in 0..<20 { _ = try await actor.add("\(worker)-\(index)") }
                }
            }
            try await group.waitForAll()
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Note>()) == 160)
    }
}
