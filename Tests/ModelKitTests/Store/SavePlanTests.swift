import Foundation
import Testing

@testable import ModelKit

/// A save as a value: the context plans it, the store writes it in a fixed order and answers
/// with the keys, on every backend.
@Suite struct SavePlanTests {
    func entity(_ name: String, in container: ModelContainer) throws -> Schema.Entity {
        try #require(container.schema.entity(named: name))
    }

    func column(_ keyPath: AnyKeyPath, of entity: Schema.Entity) throws -> Int {
        try #require(entity.column(for: keyPath))
    }

    /// Writes `plan` through the store of `context`'s container, as a save does.
    func write(_ plan: SavePlan, in context: ModelContext) throws -> SaveOutcome {
        let link = context.links[0]
        return try link.store.save(plan, in: StoreSession(link: link, author: nil, trace: nil))
    }

    struct AttachmentFailure: Error {}

    @Test func whatASaveAttachesSeesTheNewKeysWhileTheModelsTakeThemOnlyAfterTheCommit() throws {
        let context = ModelContext(try inMemoryContainer(for: Shelf.self, Book.self))
        let shelf = Shelf(name: "Novels")
        context.insert(shelf)
        var seen: (attached: Int64?, onModel: Int64?)
        try context.save { _, inserted in seen = (inserted.key(of: shelf), shelf._rowKey) }
        #expect(seen.attached != nil && seen.onModel == nil, "the context's models are not touched inside the transaction")
        #expect(shelf._rowKey == seen.attached)
    }

    @Test func aFailingAttachmentLeavesTheModelsAsTheyWereAndTheChangesPending() throws {
        let context = ModelContext(try inMemoryContainer(for: Shelf.self, Book.self))
        let shelf = Shelf(name: "Novels")
        context.insert(shelf)
        let temporary = shelf.persistentModelID
        #expect(throws: AttachmentFailure.self) { try context.save { _, _ in throw AttachmentFailure() } }
        #expect(shelf._rowKey == nil && shelf.persistentModelID == temporary && context.hasChanges)
        #expect(try ModelContext(context.container).fetchCount(FetchDescriptor<Shelf>()) == 0)
        try context.save()
        #expect(shelf._rowKey != nil && !context.hasChanges)
    }

    @Test func theContextPlansRowsTheSaveInsertsByTheirPlaceAndNeverWritesThem() throws {
        let container = try inMemoryContainer(for: Shelf.self, Book.self, Post.self, Label.self)
        let context = ModelContext(container)
        let book = Book(title: "Dune", shelf: Shelf(name: "Novels"))
        let post = Post(title: "Hello")
        post.labels = [Label(name: "news")]
        context.insert(book)
        context.insert(post)
        try context.prepareRelationshipsForSave()

        let plan = try context.savePlan(for: SaveBatch(link: context.links[0], inserted: context.inserted.models, changed: [], deleted: []))

        #expect(plan.inserts.map(\.entity.name) == ["Book", "Post", "Shelf", "Label"])
        let books = try entity("Book", in: container)
        #expect(plan.insertReferences.map(\.insert) == [0])
        #expect(plan.insertReferences.map(\.reference.column) == [try column(\Book.shelf, of: books)])
        #expect(plan.insertReferences.map(\.reference.target) == [2])
        // `Label` owns the join table: the label's list of posts is written, the post's mirrors it.
        #expect(plan.links.count == 1)
        guard case .replaceAll(let targets) = plan.links.first?.change else {
            Issue.record("a new label's posts replace whatever its row had")
            return
        }
        #expect(plan.links.first?.owner == .inserted(3))
        #expect(targets == [.inserted(1)])
        #expect(book._$modelKit.rowID == nil)
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test(arguments: StoreKind.withPostgres)
    func aStoreWritesAPlanInItsOrderAndAnswersWithTheKeys(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self, Post.self, Label.self)
        let context = ModelContext(container)
        let books = try entity("Book", in: container)
        let shelves = try entity("Shelf", in: container)
        let posts = try entity("Post", in: container)
        let labels = try entity("Label", in: container)
        let postsOfALabel = try #require(labels.orderedRelationships.first { $0.name == "posts" })
        guard case .joinTable(let table, "owner", let targetColumn) = postsOfALabel.storage else {
            Issue.record("a label owns the join table of its posts")
            return
        }

        var plan = SavePlan()
        plan.inserts.append(Book(title: "Dune"), of: books)
        plan.inserts.append(Shelf(name: "Novels"), of: shelves)
        plan.inserts.append(Book(title: "Emma"), of: books)
        plan.inserts.append(Post(title: "Hello"), of: posts)
        plan.inserts.append(Label(name: "news"), of: labels)
        let shelf = try column(\Book.shelf, of: books)
        // The first book points at a shelf inserted after it, the second at one inserted before.
        plan.insertReferences = [(0, SavePlan.Reference(column: shelf, target: 1)), (2, SavePlan.Reference(column: shelf, target: 1))]
        plan.links = [SavePlan.Links(table: table, targetColumn: targetColumn, owner: .inserted(4), change: .replaceAll(with: [.inserted(3)]))]
        var attached: [Int64] = []
        plan.attachment = { _, keys in attached = keys }

        let outcome = try write(plan, in: context)

        #expect(outcome.insertedKeys.count == 5)
        #expect(attached == outcome.insertedKeys)
        let reader = ModelContext(container)
        let stored = try reader.fetch(FetchDescriptor<Book>(sortBy: [SortDescriptor(\.title)]))
        #expect(stored.map(\.title) == ["Dune", "Emma"])
        #expect(stored.map { $0.shelf?.name } == ["Novels", "Novels"])
        #expect(stored.map(\.persistentModelID) == [outcome.insertedKeys[0], outcome.insertedKeys[2]].map {
            PersistentIdentifier(scope: context.links[0].store.identity.scope(for: books), key: .row($0))
        })
        #expect(try reader.fetch(FetchDescriptor<Post>()).first?.labels.map(\.name) == ["news"])
    }

    @Test(arguments: StoreKind.withPostgres)
    func aPlanThatUpdatesAVanishedRowIsAConflictNamingItAndWritesNothing(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Shelf.self, Book.self)
        let context = ModelContext(container)
        let books = try entity("Book", in: container)
        let title = try column(\Book.title, of: books)
        var changed = ChangedColumns()
        changed.insert(title)
        var plan = SavePlan()
        plan.inserts.append(Book(title: "Dune"), of: books)
        plan.updates = [SavePlan.Update(entity: books, key: 4_242, changed: changed, values: SavePlan.Values(of: Book(title: "Emma")))]

        #expect {
            _ = try write(plan, in: context)
        } throws: { error in
            guard case .saveConflict(let entity, let identifiers)? = error as? ModelKitError else { return false }
            return entity == "Book" && identifiers == [PersistentIdentifier(scope: context.links[0].store.identity.scope(for: books), key: .row(4_242))]
        }
        #expect(try ModelContext(container).fetchCount(FetchDescriptor<Book>()) == 0)
    }

    @Test(arguments: StoreKind.withPostgres)
    func aLoadedListIsMatchedAgainstTheStoredLinks(_ kind: StoreKind) throws {
        let store = try TestStore(kind)
        let container = try store.container(for: Post.self, Label.self)
        let context = ModelContext(container)
        let post = Post(title: "Hello")
        let (news, old, new) = (Label(name: "news"), Label(name: "old"), Label(name: "new"))
        post.labels = [news, old]
        context.insert(post)
        context.insert(new)
        try context.save()

        post.labels = [news, new]
        try context.prepareRelationshipsForSave()
        let plan = try context.savePlan(for: SaveBatch(link: context.links[0], inserted: [], changed: context.changed.models, deleted: []))
        var matched: [SavePlan.Row: Set<SavePlan.Row>] = [:]
        for links in plan.links {
            guard case .match(let targets) = links.change else {
                Issue.record("a changed loaded list is matched against what is stored")
                return
            }
            matched[links.owner] = Set(targets)
        }
        #expect(matched[.stored(old._$modelKit.rowID!)] == [])
        #expect(matched[.stored(new._$modelKit.rowID!)] == [.stored(post._$modelKit.rowID!)])
        try context.save()

        let stored = try ModelContext(container).fetch(FetchDescriptor<Post>()).first
        #expect(Set(stored?.labels.map(\.name) ?? []) == ["news", "new"])
    }
}
