import Foundation
import Testing

@testable import ModelKit

@Model final class Pallet {
    var name: String
    @Relationship(inverse: \Parcel.pallet) var parcels: [Parcel]
    init(name: String, parcels: [Parcel] = []) {
        self.name = name
        self.parcels = parcels
    }
}

@Model final class Parcel {
    var label: String
    var pallet: Pallet?
    init(label: String) { self.label = label }
}

/// A model that joins a to-many through its to-one is appended without searching the list while
/// both sides are known to agree (only setters changed them). These tests take each way a list
/// can hold a model that does not point back, or miss one that does, and check that the model
/// still ends up in the list exactly once.
@Suite struct InverseAgreementTests {
    func occurrences(of parcel: Parcel, in pallet: Pallet) -> Int {
        pallet.parcels.count { $0 === parcel }
    }

    /// A store holding a pallet "A" with parcels of `labels`, joined and saved.
    func savedPallet(labels: [String], kind: StoreKind) throws -> TestStore {
        let store = try TestStore(kind)
        let writer = ModelContext(try store.container(for: Pallet.self))
        let pallet = Pallet(name: "A")
        writer.insert(pallet)
        for label in labels {
            let parcel = Parcel(label: label)
            writer.insert(parcel)
            parcel.pallet = pallet
        }
        try writer.save()
        return store
    }

    @Test func childrenJoiningOneByOneAppearOnceEachInOrder() throws {
        let context = ModelContext(try inMemoryContainer(for: Pallet.self))
        let pallet = Pallet(name: "A")
        context.insert(pallet)
        let parcels = (0..<300).map { Parcel(label: "\($0)") }
        for parcel in parcels {
            context.insert(parcel)
            parcel.pallet = pallet
        }
        parcels[7].pallet = pallet  // already there: nothing changes
        #expect(pallet.parcels.count == 300 && zip(pallet.parcels, parcels).allSatisfy { $0 === $1 })
        parcels[0].pallet = nil
        parcels[0].pallet = pallet  // leaves, then joins again at the end
        #expect(pallet.parcels.count == 300 && pallet.parcels.last === parcels[0] && occurrences(of: parcels[0], in: pallet) == 1)
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Pallet>()).first?.parcels.count == 300)
    }

    /// An initializer writes the list without its setter, so the parcel does not point back until
    /// the pallet's insert links it; meanwhile the list is searched.
    @Test func aModelThatAnInitializerListedJoinsOnce() throws {
        let context = ModelContext(try inMemoryContainer(for: Pallet.self))
        let parcel = Parcel(label: "p")
        context.insert(parcel)
        let pallet = Pallet(name: "A", parcels: [parcel])
        #expect(parcel.pallet == nil)
        parcel.pallet = pallet
        #expect(occurrences(of: parcel, in: pallet) == 1)
        context.insert(pallet)
        let other = Parcel(label: "q")
        context.insert(other)
        other.pallet = pallet
        #expect(pallet.parcels.map(\.label) == ["p", "q"] && parcel.pallet === pallet)
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Pallet>()).first?.parcels.count == 2)
    }

    /// Another context moves the parcel away and saves; this one merges that while its pallet's
    /// list, loaded earlier, may still hold the parcel. Joining again leaves it there once.
    @Test(arguments: StoreKind.sharedStores) func aModelJoiningAListLoadedBeforeAMergeJoinsOnce(kind: StoreKind) throws {
        let store = try savedPallet(labels: ["p"], kind: kind)

        let reader = ModelContext(try store.container(for: Pallet.self))
        let loaded = try #require(try reader.fetch(FetchDescriptor<Pallet>()).first)
        let held = try #require(loaded.parcels.first)
        let mover = ModelContext(try store.container(for: Pallet.self))
        try #require(try mover.fetch(FetchDescriptor<Parcel>()).first).pallet = nil
        try mover.save()

        #expect(try reader.fetch(FetchDescriptor<Parcel>()).first === held)  // merges the move
        held.pallet = loaded
        #expect(occurrences(of: held, in: loaded) == 1)
        try reader.save()
        let check = ModelContext(try store.container(for: Pallet.self))
        #expect(try check.fetch(FetchDescriptor<Pallet>()).first?.parcels.count == 1)
    }

    /// Another context moves a parcel and saves: merging the move also reloads the lists it left
    /// and joined, which this context had loaded, so both sides agree again.
    @Test(arguments: StoreKind.sharedStores) func aMoveMergedFromAnotherContextReloadsBothLists(kind: StoreKind) throws {
        let store = try savedPallet(labels: ["p", "q"], kind: kind)
        let reader = ModelContext(try store.container(for: Pallet.self))
        let second = Pallet(name: "B")
        reader.insert(second)
        try reader.save()
        let first = try #require(try reader.fetch(FetchDescriptor<Pallet>(predicate: #Predicate { $0.name == "A" })).first)
        #expect(first.parcels.count == 2 && second.parcels.isEmpty)

        let mover = ModelContext(try store.container(for: Pallet.self))
        let moved = try #require(try mover.fetch(FetchDescriptor<Parcel>(predicate: #Predicate { $0.label == "p" })).first)
        moved.pallet = try mover.fetch(FetchDescriptor<Pallet>(predicate: #Predicate { $0.name == "B" })).first
        try mover.save()

        let parcel = try #require(try reader.fetch(FetchDescriptor<Parcel>(predicate: #Predicate { $0.label == "p" })).first)
        #expect(parcel.pallet === second)
        #expect(first.parcels.map(\.label) == ["q"] && second.parcels.map(\.label) == ["p"])
    }

    /// Rollback writes both sides back as they were saved, not through setters.
    @Test func aModelJoiningAListThatRollbackRestoredJoinsOnce() throws {
        let context = ModelContext(try inMemoryContainer(for: Pallet.self))
        let pallet = Pallet(name: "A")
        let parcel = Parcel(label: "p")
        context.insert(pallet)
        context.insert(parcel)
        parcel.pallet = pallet
        try context.save()
        parcel.pallet = nil
        context.rollback()
        #expect(parcel.pallet === pallet && occurrences(of: parcel, in: pallet) == 1)
        parcel.pallet = nil
        #expect(pallet.parcels.isEmpty)
        parcel.pallet = pallet
        #expect(occurrences(of: parcel, in: pallet) == 1)
    }

    /// A fetched model's relationships come from its row, so its list is searched when it joins.
    @Test(arguments: StoreKind.sharedStores) func aFetchedModelLeavingAndRejoiningItsListEndsLastOnce(kind: StoreKind) throws {
        let store = try savedPallet(labels: ["p", "q"], kind: kind)

        let reader = ModelContext(try store.container(for: Pallet.self))
        let other = Pallet(name: "B")
        reader.insert(other)
        let parcel = try #require(try reader.fetch(FetchDescriptor<Parcel>(predicate: #Predicate { $0.label == "p" })).first)
        let fetched = try #require(parcel.pallet)
        parcel.pallet = other
        parcel.pallet = fetched
        #expect(fetched.parcels.map(\.label) == ["q", "p"] && other.parcels.isEmpty)
    }

    @Test func appendingToAListLinksEachNewModelAndReplacingItUnlinksTheRest() throws {
        let context = ModelContext(try inMemoryContainer(for: Pallet.self))
        let first = Pallet(name: "A")
        let second = Pallet(name: "B")
        context.insert(first)
        context.insert(second)
        let parcels = (0..<5).map { Parcel(label: "\($0)") }
        for parcel in parcels {
            context.insert(parcel)
            first.parcels.append(parcel)
        }
        #expect(parcels.allSatisfy { $0.pallet === first })
        second.parcels.append(parcels[2])  // moves it: the first pallet lets go of it
        #expect(parcels[2].pallet === second && first.parcels.map(\.label) == ["0", "1", "3", "4"])
        first.parcels = [parcels[4], parcels[0]]  // reordered, two left out
        #expect(parcels[1].pallet == nil && parcels[3].pallet == nil && parcels[4].pallet === first)
        first.parcels += [parcels[2]]
        #expect(parcels[2].pallet === first && second.parcels.isEmpty)
        try context.save()
        let reader = ModelContext(context.container)
        let pallets = try reader.fetch(FetchDescriptor<Pallet>(sortBy: [SortDescriptor(\.name)]))
        #expect(pallets.map { Set($0.parcels.map(\.label)) } == [["4", "0", "2"], []])
    }

    /// Replacing a list that has not loaded yet lets go of what it held in the store.
    @Test(arguments: StoreKind.sharedStores) func replacingAListThatIsNotLoadedLetsGoOfWhatItHeld(kind: StoreKind) throws {
        let store = try savedPallet(labels: ["p", "q"], kind: kind)

        let reader = ModelContext(try store.container(for: Pallet.self))
        let fetched = try #require(try reader.fetch(FetchDescriptor<Pallet>()).first)
        let new = Parcel(label: "r")
        reader.insert(new)
        fetched.parcels = [new]
        #expect(new.pallet === fetched)
        try reader.save()
        let check = ModelContext(try store.container(for: Pallet.self))
        let parcels = try check.fetch(FetchDescriptor<Parcel>(sortBy: [SortDescriptor(\.label)]))
        #expect(parcels.map { $0.pallet?.name } == [nil, nil, "A"])
    }

    /// A many-to-many list the app appends the same model to twice holds it once, as SwiftData's
    /// do, and so does the inverse.
    @Test func appendingAModelTwiceToAManyToManyHoldsItOnceOnBothSides() throws {
        let context = ModelContext(try inMemoryContainer(for: Post.self))
        let post = Post(title: "Hello")
        let label = Label(name: "news")
        context.insert(post)
        context.insert(label)
        post.labels.append(label)
        post.labels.append(label)
        #expect(post.labels.count == 1 && label.posts.count == 1 && label.posts.first === post)
    }

    /// Random joins, moves and removals from either side, saves, rollbacks, deletes, moves another
    /// context saves and this one merges, and a switch to models fetched in a new context: after
    /// every step each pallet lists each of its parcels once, and exactly the parcels that point
    /// at it.
    @Test(arguments: Array(1...12) as [UInt64]) func randomChangesKeepBothSidesInStep(seed: UInt64) throws {
        let container = try inMemoryContainer(for: Pallet.self)
        try randomChanges(seed: seed, in: container, movedBy: container)
    }

    /// The same, with the other context's moves coming from another container on the same file,
    /// merged as another process's commits are.
    @Test(arguments: Array(1...4) as [UInt64]) func randomChangesWithMovesFromAnotherContainerKeepBothSidesInStep(seed: UInt64) throws {
        let store = try TestStore(.onDisk)
        try randomChanges(seed: seed, in: try store.container(for: Pallet.self), movedBy: try store.container(for: Pallet.self))
    }

    func randomChanges(seed: UInt64, in container: ModelContainer, movedBy otherContainer: ModelContainer) throws {
        let random = SeededRandom(seed: seed)
        var context = ModelContext(container)
        var pallets = (0..<4).map { Pallet(name: "P\($0)") }
        pallets.forEach(context.insert)
        try context.save()  // a rollback takes unsaved models out of the context
        var parcels: [Parcel] = []
        for step in 0..<600 {
            let live = parcels.filter { !$0.isDeleted }
            switch random.next() % 100 {
            case 0..<30:
                let parcel = Parcel(label: "\(step)")
                context.insert(parcel)
                parcels.append(parcel)
                parcel.pallet = random.pick(pallets)
            case 30..<45 where !live.isEmpty:
                random.pick(live).pallet = random.chance(20) ? nil : random.pick(pallets)
            case 45..<60 where !live.isEmpty:
                // A list the app appends a model it holds to holds it twice, as set: not the case here.
                let (pallet, parcel) = (random.pick(pallets), random.pick(live))
                if parcel.pallet !== pallet { pallet.parcels.append(parcel) }
            case 60..<70 where !live.isEmpty:
                let parcel = random.pick(live)
                parcel.pallet?.parcels.removeAll { $0 === parcel }
            case 70..<78:
                try context.save()
            case 78..<84:
                context.rollback()
                parcels = parcels.filter { $0.modelContext != nil || $0.isDeleted }
            case 84..<90 where !live.isEmpty:
                context.delete(random.pick(live))
            case 93..<97:
                // Another context moves a stored parcel; this one merges the move on its next read,
                // unsaved changes and all.
                let other = ModelContext(otherContainer)
                let stored = try other.fetch(FetchDescriptor<Parcel>())
                if !stored.isEmpty {
                    random.pick(stored).pallet = random.pick(try other.fetch(FetchDescriptor<Pallet>()))
                    try other.save()
                }
                _ = try context.fetch(FetchDescriptor<Parcel>())
            case 90..<93:
                try context.save()
                context = ModelContext(container)
                pallets = try context.fetch(FetchDescriptor<Pallet>(sortBy: [SortDescriptor(\.name)]))
                parcels = try context.fetch(FetchDescriptor<Parcel>())
            default:
                break
            }
            try #require(inStep(pallets: pallets, parcels: parcels.filter { !$0.isDeleted }), "step \(step)")
        }
        try context.save()
        let check = ModelContext(container)
        let stored = try check.fetch(FetchDescriptor<Pallet>())
        #expect(inStep(pallets: stored, parcels: try check.fetch(FetchDescriptor<Parcel>())))
    }

    /// Whether every pallet lists each parcel pointing at it once, and no other.
    func inStep(pallets: [Pallet], parcels: [Parcel]) -> Bool {
        for pallet in pallets {
            let listed = pallet.parcels.filter { !$0.isDeleted }
            guard Set(listed.map(ObjectIdentifier.init)).count == listed.count, listed.allSatisfy({ $0.pallet === pallet }) else {
                return false
            }
        }
        return parcels.allSatisfy { parcel in parcel.pallet.map { owner in owner.parcels.contains { $0 === parcel } } ?? true }
    }
}
