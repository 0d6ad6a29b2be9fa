import Foundation
import Testing

@testable import ModelKit

/// When a process announces its commits: the decisions of ``AnnouncementPacer``.
@Suite struct AnnouncementPacerTests {
    func change(_ key: Int64) -> StoreChange { StoreChange(inserted: ["Item": [key]]) }
    let start = ContinuousClock.now

    @Test func theFirstChangeIsAnnouncedAtOnce() {
        var pacer = AnnouncementPacer(interval: .milliseconds(50))
        #expect(pacer.add(change(1), now: start) == start)
        #expect(pacer.take(now: start).inserted["Item"] == [1])
    }

    @Test func changesWithinTheIntervalWaitForItsEndAndGoInOneAnnouncement() {
        var pacer = AnnouncementPacer(interval: .milliseconds(50))
        _ = pacer.add(change(1), now: start)
        _ = pacer.take(now: start)
        #expect(pacer.add(change(2), now: start + .milliseconds(10)) == start + .milliseconds(50))
        #expect(pacer.add(change(3), now: start + .milliseconds(20)) == nil, "the scheduled announcement carries it")
        #expect(pacer.add(change(4), now: start + .milliseconds(60)) == nil, "still scheduled until taken")
        #expect(pacer.take(now: start + .milliseconds(60)).inserted["Item"] == [2, 3, 4])
    }

    @Test func aChangeAfterAQuietSpellGoesAtOnce() {
        var pacer = AnnouncementPacer(interval: .milliseconds(50))
        _ = pacer.add(change(1), now: start)
        _ = pacer.take(now: start)
        let later = start + .milliseconds(200)
        #expect(pacer.add(change(2), now: later) == later)
        #expect(pacer.take(now: later).inserted["Item"] == [2])
    }

    @Test func nothingIsLostOrSentTwiceUnderRandomTiming() {
        let seed = ProcessInfo.processInfo.environment["ANNOUNCEMENT_PACER_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        print("AnnouncementPacerTests seed \(seed) (ANNOUNCEMENT_PACER_SEED)")
        let random = SeededRandom(seed: seed)
        func next(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
        var pacer = AnnouncementPacer(interval: .milliseconds(20))
        var now = start
        var due: ContinuousClock.Instant?
        var sent: [Int64] = []
        var sentAt: [ContinuousClock.Instant] = []
        for key in Int64(0)..<2_000 {
            now += .microseconds(next(30_000))
            if let scheduled = due, scheduled <= now {
                sent += pacer.take(now: scheduled).inserted["Item"] ?? []
                sentAt.append(scheduled)
                due = nil
            }
            if let when = pacer.add(change(key), now: now) {
                #expect(due == nil, "seed \(seed): one announcement scheduled at a time")
                #expect(when >= now && when <= now + .milliseconds(20), "seed \(seed)")
                due = when
            }
        }
        if let scheduled = due { sent += pacer.take(now: scheduled).inserted["Item"] ?? [] }
        #expect(sent == Array(0..<2_000), "seed \(seed): every change announced once, in order")
        let gaps = zip(sentAt, sentAt.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= .milliseconds(20) }, "seed \(seed): announcements at least an interval apart")
    }

    @Test func aRowSavedManyTimesWithinAnIntervalIsNamedOnce() {
        var pacer = AnnouncementPacer(interval: .milliseconds(50))
        _ = pacer.add(change(1), now: start)
        _ = pacer.take(now: start)
        for _ in 0..<100 { _ = pacer.add(StoreChange(updated: ["Item": [7]]), now: start + .milliseconds(1)) }
        _ = pacer.add(change(1), now: start + .milliseconds(2))
        let taken = pacer.take(now: start + .milliseconds(50))
        #expect(taken.updated["Item"] == [7] && taken.inserted["Item"] == [1])
    }

    @Test func aChangeOfUnknownRowsStaysUnknownWhenMerged() {
        var merged = change(1)
        merged.merge(.external)
        #expect(merged.isExternal && merged.inserted["Item"] == [1])
    }
}
