import Foundation
@testable import ModelKit
import ModelKitPostgres
import Testing

@Model final class Customer {
    @Attribute(.unique) var code: String
    var name: String
    var orders: [Order] = []
    init(code: String, name: String) {
        self.code = code
        self.name = name
    }
}

@Model final class Order {
    var number: Int
    @Relationship(inverse: \Customer.orders) var customer: Customer?
    init(number: Int, customer: Customer? = nil) {
        self.number = number
        self.customer = customer
    }
}

/// Many new models with a unique attribute go to PostgreSQL in multi-row upserts: a model whose
/// unique value is stored updates that row and takes its identity, as one row at a time does.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresBulkUpsertTests {
    @Test func manyModelsWithAUniqueAttributeGoInMultiRowUpsertsAndTakeStoredRows() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: Customer.self, Order.self)
        let first = ModelContext(container)
        let stored = ["b", "c"].map { Customer(code: $0, name: "old \($0)") }
        for customer in stored { first.insert(customer) }
        try first.save()

        let context = ModelContext(container)
        var statements: [String] = []
        context.statementTrace = { statements.append($0) }
        let customers = (0..<2_500).map { Customer(code: $0 == 7 ? "b" : $0 == 1_500 ? "c" : "new \($0)", name: "name \($0)") }
        for customer in customers { context.insert(customer) }
        try context.save()

        let upserts = statements.filter { $0.contains(#"INSERT INTO "Customer""#) }
        #expect(upserts.count == 3, "up to 1,000 rows a statement: \(upserts.count) statements")
        #expect(customers[7].persistentModelID == stored[0].persistentModelID)
        #expect(customers[1_500].persistentModelID == stored[1].persistentModelID)
        #expect(Set(customers.map(\.persistentModelID)).count == 2_500)
        #expect(try database.rows(#"SELECT count(*) FROM "Customer""#) == [["2500"]])
        #expect(try database.rows(#"SELECT "name" FROM "Customer" WHERE "code" IN ('b', 'c') ORDER BY "code""#) == [["name 7"], ["name 1500"]])

        let reader = ModelContext(container)
        for index in [0, 7, 999, 1_500, 2_499] {
            #expect((reader.model(for: customers[index].persistentModelID) as? Customer)?.name == "name \(index)")
        }
        let save = try #require(try reader.fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>()).last)
        let inserts = save.changes.filter { if case .insert = $0 { true } else { false } }
        let updates = save.changes.filter { if case .update = $0 { true } else { false } }
        #expect(inserts.count == 2_498)
        #expect(Set(updates.map(\.changedPersistentIdentifier)) == Set(stored.map(\.persistentModelID)))
    }

    @Test func newModelsSharingAUniqueValueInOneSaveEndAsOneRowWithTheLastValues() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: Customer.self, Order.self)
        let context = ModelContext(container)
        let customers = [Customer(code: "a", name: "first"), Customer(code: "b", name: "b"), Customer(code: "a", name: "second")]
        for customer in customers { context.insert(customer) }
        try context.save()

        #expect(customers[0].persistentModelID == customers[2].persistentModelID)
        #expect(try database.rows(#"SELECT "code", "name" FROM "Customer" ORDER BY "code""#) == [["a", "second"], ["b", "b"]])
    }

    @Test func aReferenceToAModelThatMetAStoredRowPointsAtTheStoredRow() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: Customer.self, Order.self)
        let first = ModelContext(container)
        let stored = Customer(code: "acme", name: "Acme")
        first.insert(stored)
        try first.save()

        let context = ModelContext(container)
        let customers = [Customer(code: "acme", name: "Acme Inc."), Customer(code: "new", name: "New")]
        let orders = [Order(number: 1, customer: customers[0]), Order(number: 2, customer: customers[1]), Order(number: 3, customer: customers[0])]
        for customer in customers { context.insert(customer) }
        for order in orders { context.insert(order) }
        try context.save()

        let reader = ModelContext(container)
        let read = try reader.fetch(FetchDescriptor<Order>(sortBy: [SortDescriptor(\.number)]))
        #expect(read.map { $0.customer?.code } == ["acme", "new", "acme"])
        #expect(read.first?.customer?.persistentModelID == stored.persistentModelID)
        let acme = try #require(reader.model(for: stored.persistentModelID) as? Customer)
        #expect(acme.orders.map(\.number).sorted() == [1, 3])
        #expect(try database.rows(#"SELECT count(*) FROM "Customer""#) == [["2"]])
    }

    @Test func aFailedBulkUpsertWritesNothingAndTheModelsCanBeSavedAgain() throws {
        let database = PostgresTestDatabase()
        let container = try database.container(for: Customer.self, Order.self)
        try database.execute(#"ALTER TABLE "Customer" ADD CONSTRAINT "no_refused" CHECK ("name" <> 'refused')"#)
        let context = ModelContext(container)
        let customers = (0..<10).map { Customer(code: "c\($0)", name: $0 == 5 ? "refused" : "ok") }
        for customer in customers { context.insert(customer) }
        #expect(throws: (any Error).self) { try context.save() }
        #expect(try database.rows(#"SELECT count(*) FROM "Customer""#) == [["0"]])
        #expect(customers.allSatisfy { $0.persistentModelID.rowID == nil })

        customers[5].name = "accepted"
        try context.save()
        #expect(try database.rows(#"SELECT count(*) FROM "Customer""#) == [["10"]])
    }

    @Test func subclassRowsGoInMultiRowUpsertsAsTheirOwnClass() throws {
        let database = PostgresTestDatabase()
        // The hierarchy's base class has the unique attribute (models of HierarchyStoreTests).
        let container = try database.container(for: Subscriber.self, GoldSubscriber.self)
        let first = ModelContext(container)
        first.insert(Subscriber(handle: "T1", balance: 2))
        try first.save()

        let context = ModelContext(container)
        let golds = (1...5).map { GoldSubscriber(handle: "T\($0)", balance: 3, tier: $0 * 10) }
        for gold in golds { context.insert(gold) }
        try context.save()

        let reader = ModelContext(container)
        let read = try reader.fetch(FetchDescriptor<GoldSubscriber>(sortBy: [SortDescriptor(\.handle)]))
        #expect(read.map(\.handle) == ["T1", "T2", "T3", "T4", "T5"])
        #expect(read.map(\.tier) == [10, 20, 30, 40, 50])
        #expect(try reader.fetchCount(FetchDescriptor<Subscriber>()) == 5)
    }
}
