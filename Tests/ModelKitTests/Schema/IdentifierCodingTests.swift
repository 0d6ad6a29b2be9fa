import Foundation
import Testing

@testable import ModelKit

/// Identifiers share their entity and store, and still encode, compare and hash as the three
/// fields they were.
@Suite struct IdentifierCodingTests {
    /// What identifiers encoded as before they shared a scope: stored ones must still decode.
    static let encoded = [
        #"{"entityName":"Item","key":{"row":{"_0":42}},"storeIdentifier":"store-1"}"#,
        #"{"entityName":"Item","key":{"temporary":{"_0":7}}}"#,
    ]

    @Test func identifiersEncodeAsTheyDidAndDecodeEqual() throws {
        let identifiers = [
            PersistentIdentifier(entityName: "Item", storeIdentifier: "store-1", key: .row(42)),
            PersistentIdentifier(entityName: "Item", storeIdentifier: nil, key: .temporary(7)),
        ]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try identifiers.map { String(decoding: try encoder.encode($0), as: UTF8.self) } == Self.encoded)
        let decoded = try Self.encoded.map { try JSONDecoder().decode(PersistentIdentifier.self, from: Data($0.utf8)) }
        #expect(decoded == identifiers)
        #expect(decoded[0].storeIdentifier == "store-1" && decoded[1].storeIdentifier == nil && decoded[1].isTemporary)
    }

    @Test func identifiersOfSeparateScopesCompareAndHashByValue() {
        let shared = PersistentIdentifier.Scope(entityName: "Item", storeIdentifier: "s")
        let one = PersistentIdentifier(scope: shared, key: .row(1))
        let same = PersistentIdentifier(entityName: "Item", storeIdentifier: "s", key: .row(1))
        #expect(one == same && one.hashValue == same.hashValue)
        #expect(Set([one, same, PersistentIdentifier(scope: shared, key: .row(2))]).count == 2)
        #expect(one != PersistentIdentifier(entityName: "Item", storeIdentifier: "t", key: .row(1)))
        #expect(one != PersistentIdentifier(entityName: "Other", storeIdentifier: "s", key: .row(1)))
        #expect(one != PersistentIdentifier(scope: shared, key: .temporary(1)))
        let temporary = PersistentIdentifier(scope: shared, key: .temporary(1))
        #expect(temporary.isTemporary && temporary.key == .temporary(1) && temporary.rowID == nil && temporary.entityName == "Item")
        #expect(temporary == PersistentIdentifier(entityName: "Item", storeIdentifier: "s", key: .temporary(1)))
    }

    /// A temporary identifier's number uses all 64 bits, and a row's key may be any `Int64`.
    @Test func keysAtTheLimitsRoundTrip() throws {
        for key: PersistentIdentifier.Key in [.temporary(.max), .temporary(0), .row(.min), .row(.max), .row(-1)] {
            let identifier = PersistentIdentifier(entityName: "Item", storeIdentifier: "s", key: key)
            #expect(identifier.key == key)
            let decoded = try JSONDecoder().decode(PersistentIdentifier.self, from: JSONEncoder().encode(identifier))
            #expect(decoded == identifier && decoded.key == key)
        }
        #expect(PersistentIdentifier(entityName: "Item", storeIdentifier: "s", key: .row(-1))
            != PersistentIdentifier(entityName: "Item", storeIdentifier: "s", key: .temporary(.max)))
    }

    @Test func identifiersOfOneStoreShareTheirScopeAndTakeTwoWords() throws {
        #expect(MemoryLayout<PersistentIdentifier>.stride == 16)
        let context = ModelContext(try inMemoryContainer(for: TodoItem.self))
        let items = [TodoItem(title: "a"), TodoItem(title: "b")]
        for item in items { context.insert(item) }
        #expect(items[0].persistentModelID.scope === items[1].persistentModelID.scope)
        try context.save()
        let saved = items.map(\.persistentModelID)
        #expect(saved[0].scope === saved[1].scope && saved[0] != saved[1])
        #expect(saved.allSatisfy { $0.storeIdentifier != nil && $0.entityName == "TodoItem" })
    }
}
