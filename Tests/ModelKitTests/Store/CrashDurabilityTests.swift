import Foundation
import ModelKit
import TestSupport
import Testing

/// The entry the crash writer saves, as this process reads it.
@Model final class Entry {
    var number: Int
    var payload: String
    init(number: Int, payload: String) {
        self.number = number
        self.payload = payload
    }
}

/// A process killed mid-save loses no save it acknowledged, and leaves a sound store.
@Suite struct CrashDurabilityTests {
    @Test func aWriterKilledTwentyTimesLosesNoAcknowledgedSave() throws {
        let store = try TemporaryStore()
        let writer = ChildProcess.product("modelkit-crash-writer")
        var acknowledged = 0
        for round in 0..<20 {
            let process = try ChildProcess(writer, arguments: [store.url.path])
            // Kill at a different moment each round: some during startup, most in the save loop.
            usleep(UInt32(20_000 + (round * 7_919) % 150_000))
            process.send(SIGKILL)
            let printed = String(decoding: process.readToEnd().out, as: UTF8.self)
            #expect(process.waitUntilExit() == .signal(SIGKILL))
            for line in printed.split(separator: "\n") where line.hasPrefix("saved ") {
                if let number = Int(line.dropFirst(6)) { acknowledged = max(acknowledged, number) }
            }
        }
        #expect(acknowledged > 20, "the writer got to save")
        #expect(try store.sql("PRAGMA integrity_check") == [["ok"]])
        let numbers = try ModelContext(try store.container(for: Entry.self)).fetch(FetchDescriptor<Entry>()).map(\.number)
        let saved = Set(numbers)
        #expect((1...acknowledged).allSatisfy(saved.contains), "every acknowledged save is stored")
        #expect(Dictionary(grouping: numbers, by: { $0 }).values.allSatisfy { $0.count == 20 }, "no save is stored in part")
        let history = try ModelContext(try store.container(for: Entry.self)).fetchHistory(HistoryDescriptor<DefaultHistoryTransaction>())
        #expect(history.count == saved.count, "one history transaction per stored save, none for a save lost")
        #expect(history.allSatisfy { $0.changes.count == 20 && $0.author == "crash-writer" })
    }
}
