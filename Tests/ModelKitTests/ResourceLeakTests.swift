import Foundation
import ModelKit
import Testing

/// Containers and contexts go away when the program lets go of them, file descriptors included.
@Suite(.serialized) struct ResourceLeakTests {
    func openFileDescriptors() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count
    }

    /// Opens a container on its own file, saves and reads related models, and lets go of it.
    func useAndRelease(_ store: TemporaryStore) throws {
        let container = try store.container(for: Shelf.self, Book.self)
        let context = ModelContext(container)
        let shelf = Shelf(name: "Fiction")
        shelf.books = [Book(title: "Dune"), Book(title: "Emma")]
        context.insert(shelf)
        try context.save()
        let reader = ModelContext(container)
        for book in try reader.fetch(FetchDescriptor<Book>()) { _ = book.shelf?.books.count }
    }

    @Test func fiftyContainersWithRelationshipsAreReleasedWithTheirFiles() throws {
        let stores = try (0..<50).map { _ in try TemporaryStore() }
        try useAndRelease(stores[0])  // warm up lazily created process-wide state
        let baseline = try openFileDescriptors()
        for store in stores.dropFirst() { try useAndRelease(store) }
        #expect(try openFileDescriptors() <= baseline)
        for store in stores {
            #expect(!FileManager.default.fileExists(atPath: store.url.path + "-wal"), "closing the last connection checkpoints the WAL")
        }
    }
}
