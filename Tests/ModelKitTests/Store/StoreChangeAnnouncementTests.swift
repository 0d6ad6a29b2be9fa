import Foundation
import Testing

@testable import ModelKit

/// The `NOTIFY` payload that tells other instances what a commit changed.
struct StoreChangeAnnouncementTests {
    @Test func anAnnouncementIsJSONAndRoundTripsItsKeysIncludingUnusualEntityNames() throws {
        let change = StoreChange(inserted: ["Todo": [1, 2, Int64.max]], updated: ["Quote\"d\\Name": [3]], deleted: ["Ünïcode\u{1}": [Int64.min]])
        let payload = change.announcement(from: "instance-a")
        #expect(try JSONSerialization.jsonObject(with: Data(payload.utf8)) is [String: Any])
        let heard = try #require(StoreChange(announcement: payload, ignoring: "instance-b"))
        #expect(heard.inserted == change.inserted)
        #expect(heard.updated == change.updated)
        #expect(heard.deleted == change.deleted)
        #expect(!heard.isExternal)
    }

    @Test func anInstanceIgnoresItsOwnAnnouncements() {
        let payload = StoreChange(inserted: ["Todo": [1]]).announcement(from: "instance-a")
        #expect(StoreChange(announcement: payload, ignoring: "instance-a") == nil)
    }

    @Test func aChangeTooLargeForOnePayloadTravelsAsAChangeOfUnknownRows() throws {
        let change = StoreChange(inserted: ["Todo": Array(1...3_000)])
        let payload = change.announcement(from: "instance-a")
        #expect(payload.utf8.count < 8000)
        #expect(try #require(StoreChange(announcement: payload, ignoring: "instance-b")).isExternal)
    }
}
