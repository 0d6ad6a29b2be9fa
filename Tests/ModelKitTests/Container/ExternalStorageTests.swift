import Foundation
import ModelKit
import Testing

@Model final class Photo {
    var caption: String
    @Attribute(.externalStorage) var image: Data
    @Attribute(.externalStorage) var thumbnail: Data?
    init(caption: String, image: Data) {
        self.caption = caption
        self.image = image
    }
}

/// `@Attribute(.externalStorage)`: large values in files beside the store, in step with saves.
@Suite struct ExternalStorageTests {
    let large = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    let small = Data([1, 2, 3])

    func files(_ store: TemporaryStore) -> [String] {
        let directory = store.url.deletingLastPathComponent().appendingPathComponent("test.store_external")
        return ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func aLargeValueGoesToAFileAndASmallOneStaysInTheRow() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: Photo.self))
        let photo = Photo(caption: "sea", image: large)
        photo.thumbnail = small
        context.insert(photo)
        try context.save()
        let names = files(store)
        #expect(names.count == 1)
        #expect(try store.sql("SELECT typeof(image), image, typeof(thumbnail) FROM Photo") == [["text", names[0], "blob"]])
        let read = try #require(try ModelContext(try store.container(for: Photo.self)).fetch(FetchDescriptor<Photo>()).first)
        #expect(read.image == large)
        #expect(read.thumbnail == small)
    }

    /// A rollback, and a merge of another context's change, read an external value back from
    /// its file.
    @Test func aRollbackAndAMergeReadTheValueBackFromItsFile() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Photo.self)
        let writer = ModelContext(container)
        writer.insert(Photo(caption: "sea", image: large))
        try writer.save()
        let context = ModelContext(container)
        let photo = try #require(try context.fetch(FetchDescriptor<Photo>()).first)
        photo.image = small
        photo.caption = "changed"
        context.rollback()
        #expect(photo.image == large && photo.caption == "sea")
        let replaced = Data(large.reversed())
        try #require(try writer.fetch(FetchDescriptor<Photo>()).first).image = replaced
        try writer.save()
        context.processPendingChanges()
        #expect(photo.image == replaced)
    }

    /// A value of a megabyte or more is mapped from its file, not read into memory, and stays
    /// readable when another context replaces it and the save removes its file.
    @Test func aLargeValueIsMappedAndOutlivesItsFile() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Photo.self)
        let huge = Data((0..<(1 << 20) + 7).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let writer = ModelContext(container)
        writer.insert(Photo(caption: "huge", image: huge))
        try writer.save()
        let reader = ModelContext(container)
        let photo = try #require(try reader.fetch(FetchDescriptor<Photo>()).first)
        #if os(Linux)
        let file = try #require(files(store).first)
        // `/proc` files report a size of zero: `String(contentsOfFile:)` reads only the first 4 KiB.
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile()
        #expect(String(decoding: maps, as: UTF8.self).contains(file))
        #endif
        let held = photo.image
        try #require(try writer.fetch(FetchDescriptor<Photo>()).first).image = large
        try writer.save()
        #expect(files(store).count == 1)  // the old file is gone
        #expect(held == huge)
    }

    @Test func replacingAndDeletingRemoveTheFilesOnceTheSaveCommits() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Photo.self)
        let context = ModelContext(container)
        let photo = Photo(caption: "sea", image: large)
        context.insert(photo)
        try context.save()
        let first = files(store)
        photo.image = Data(large.reversed())
        try context.save()
        let second = files(store)
        #expect(second.count == 1 && second != first, "the new value's file replaced the old one")
        #expect(try ModelContext(container).fetch(FetchDescriptor<Photo>()).first?.image == Data(large.reversed()))
        photo.image = small
        try context.save()
        #expect(files(store).isEmpty, "a small value moves back into the row")
        photo.image = large
        try context.save()
        context.delete(photo)
        try context.save()
        #expect(files(store).isEmpty)
    }

    @Test func aSaveThatFailsLeavesNoFileAndBatchDeletesRemoveTheirs() throws {
        let store = try TemporaryStore()
        let container = try store.container(for: Photo.self)
        let a = ModelContext(container)
        let kept = Photo(caption: "kept", image: large)
        a.insert(kept)
        try a.save()
        let before = files(store)
        _ = try store.sql("DELETE FROM Photo")  // another program: the file stays
        kept.image = Data(large.reversed())
        a.insert(Photo(caption: "new", image: large))
        #expect(throws: ModelKitError.self) { try a.save() }  // a conflict: kept's row is gone
        #expect(files(store) == before, "the files the failed save wrote are gone")
        try FileManager.default.removeItem(at: store.url.deletingLastPathComponent().appendingPathComponent("test.store_external"))

        let c = ModelContext(container)
        for index in 0..<3 { c.insert(Photo(caption: "p\(index)", image: large)) }
        try c.save()
        #expect(files(store).count == 3)
        try c.delete(model: Photo.self, where: #Predicate { $0.caption != "p1" })
        #expect(files(store).count == 1)
        try container.erase()
        #expect(files(store).isEmpty)
    }

    @Test func predicatesOnAnExternalValueRunInSwiftWithTheRightAnswer() throws {
        let store = try TemporaryStore()
        let context = ModelContext(try store.container(for: Photo.self))
        context.insert(Photo(caption: "big", image: large))
        context.insert(Photo(caption: "tiny", image: small))
        try context.save()
        let large = self.large
        let found = try ModelContext(context.container).fetch(FetchDescriptor<Photo>(predicate: #Predicate { $0.image == large }))
        #expect(found.map(\.caption) == ["big"])
    }

    @Test func inMemoryStoresKeepEveryValueInTheRow() throws {
        let context = ModelContext(try inMemoryContainer(for: Photo.self))
        context.insert(Photo(caption: "sea", image: large))
        try context.save()
        #expect(try ModelContext(context.container).fetch(FetchDescriptor<Photo>()).first?.image == large)
    }
}
