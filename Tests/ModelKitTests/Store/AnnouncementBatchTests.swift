import Testing

@testable import ModelKit

/// Which commit announces what: the decisions of ``AnnouncementBatch``.
@Suite struct AnnouncementBatchTests {
    func change(_ key: Int64) -> StoreChange { StoreChange(inserted: ["Item": [key]]) }

    @Test func aCommitAloneCarriesItsOwnAnnouncementAndOwesNothingAfter() {
        var batch = AnnouncementBatch()
        #expect(batch.role() == .carrier)
        #expect(batch.carrierFinished() == nil)
        #expect(batch.role() == .carrier)
    }

    @Test func commitsDuringACarriersCommitLeaveTheirChangesToItAndItSendsThemInOne() throws {
        var batch = AnnouncementBatch()
        #expect(batch.role() == .carrier)
        #expect(batch.role() == .leaver)
        #expect(batch.role() == .leaver)
        #expect(batch.leave(change(1)) == nil)
        #expect(batch.leave(change(2)) == nil)
        let finished = batch.carrierFinished()
        let owed = try #require(finished)
        #expect(owed.inserted["Item"] == [1, 2])
        #expect(batch.carrierFinished() == nil)
    }

    @Test func aLeaverWhoseCarrierFinishedFirstAnnouncesItsOwnChange() {
        var batch = AnnouncementBatch()
        #expect(batch.role() == .carrier)
        #expect(batch.role() == .leaver)
        #expect(batch.carrierFinished() == nil)
        #expect(batch.leave(change(3))?.inserted["Item"] == [3])
    }

    @Test func aChangeOfUnknownRowsStaysUnknownWhenMerged() {
        var merged = change(1)
        merged.merge(.external)
        #expect(merged.isExternal && merged.inserted["Item"] == [1])
    }
}
