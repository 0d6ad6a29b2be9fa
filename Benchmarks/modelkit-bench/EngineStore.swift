import Foundation
@_spi(Benchmarks) import ModelKit

/// Each case through ModelKit, as an app would write it.
final class EngineStore {
    let container: ModelContainer

    /// A store at `url`; `recordsHistory: false` turns history off, to measure what it costs.
    init(url: URL, recordsHistory: Bool = true) throws {
        var configuration = ModelConfiguration(url: url)
        configuration.recordsHistory = recordsHistory
        container = try ModelContainer(for: BenchItem.self, BenchParent.self, configurations: configuration)
    }

    /// A store in another database, such as PostgreSQL.
    init(configuration: any DataStoreConfiguration) throws {
        container = try ModelContainer(for: Schema([BenchItem.self, BenchParent.self]), configurations: [configuration])
    }

    func insert(_ count: Int) throws {
        let context = ModelContext(container)
        for i in 0..<count {
            context.insert(BenchItem(key: i, name: BenchData.name(i), value: BenchData.value(i), flag: BenchData.flag(i)))
        }
        try context.save()
    }

    /// `count` rows of a model without unique attributes, in one save.
    func insertChildren(_ count: Int) throws {
        let context = ModelContext(container)
        for i in 0..<count { context.insert(BenchChild(title: BenchData.name(i), position: i)) }
        try context.save()
    }

    func fetchAll() throws -> [BenchItem] {
        try ModelContext(container).fetch(FetchDescriptor<BenchItem>())
    }

    func fetch(keys: [Int]) throws -> Int {
        let context = ModelContext(container)
        var found = 0
        for key in keys {
            found += try context.fetch(FetchDescriptor<BenchItem>(predicate: #Predicate { $0.key == key })).count
        }
        return found
    }

    func fetchRange(from low: Double, to high: Double, limit: Int) throws -> [BenchItem] {
        var descriptor = FetchDescriptor<BenchItem>(
            predicate: #Predicate { $0.value >= low && $0.value < high }, sortBy: [SortDescriptor(\.value)])
        descriptor.fetchLimit = limit
        return try ModelContext(container).fetch(descriptor)
    }

    /// A sorted, limited fetch while the context has one unsaved insert and one unsaved change of
    /// the type; returns the seconds of the fetch alone.
    func fetchLimitWithPending(rows: Int, limit: Int) throws -> Double {
        let context = ModelContext(container)
        context.insert(BenchItem(key: rows + 1, name: "pending", value: 0, flag: false))
        let first = try context.fetch(FetchDescriptor<BenchItem>(predicate: #Predicate { $0.key == 0 }))
        first[0].name = "changed"
        var descriptor = FetchDescriptor<BenchItem>(sortBy: [SortDescriptor(\.key)])
        descriptor.fetchLimit = limit
        return try seconds {
            let page = try context.fetch(descriptor)
            precondition(page.count == limit)
        }
    }

    func countFlagged() throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<BenchItem>(predicate: #Predicate { $0.flag }))
    }

    func updateAll() throws {
        let context = ModelContext(container)
        for item in try context.fetch(FetchDescriptor<BenchItem>()) { item.flag.toggle() }
        try context.save()
    }

    func insertFamilies(_ parents: Int) throws {
        let context = ModelContext(container)
        for p in 0..<parents {
            let parent = BenchParent(name: "parent \(p)")
            parent.children = (0..<10).map { BenchChild(title: "child \(p).\($0)", position: $0) }
            context.insert(parent)
        }
        try context.save()
    }

    /// `count` children join one parent one at a time through their to-one (`child.parent =
    /// parent`), which appends each to the parent's to-many; then one save.
    func appendChildren(_ count: Int) throws {
        let context = ModelContext(container)
        let parent = BenchParent(name: "parent")
        context.insert(parent)
        for c in 0..<count {
            let child = BenchChild(title: "child \(c)", position: c)
            context.insert(child)
            child.parent = parent
        }
        try context.save()
    }

    /// Every parent with its children loaded by prefetch; returns the number of children seen.
    /// `requests` times, as a server would handle a request: a new context fetches the one parent,
    /// whose children it has not read, adds a child through the child's to-one, and saves.
    func joinOneChildEach(requests: Int) throws {
        for request in 0..<requests {
            let context = ModelContext(container)
            var first = FetchDescriptor<BenchParent>()
            first.fetchLimit = 1  // as the raw side's `LIMIT 1`
            guard let parent = try context.fetch(first).first else { preconditionFailure("no parent") }
            let child = BenchChild(title: "joined \(request)", position: -1)
            context.insert(child)
            child.parent = parent
            try context.save()
        }
    }

    func fetchFamilies() throws -> Int {
        var descriptor = FetchDescriptor<BenchParent>()
        descriptor.relationshipKeyPathsForPrefetching = [\.children]
        return try ModelContext(container).fetch(descriptor).reduce(0) { $0 + $1.children.count }
    }

    func countAll() throws -> Int {
        try ModelContext(container).fetchCount(FetchDescriptor<BenchItem>())
    }

    func deleteAll() throws {
        try ModelContext(container).delete(model: BenchItem.self)
    }
}
