import Foundation
import Testing
import TestSupport

/// The fuzz target, built normally, replays its seed corpus (with the inputs that once crashed
/// the server) and every rule holds: the harness keeps compiling, and its seeds stay valid.
@Suite struct SyncFuzzCorpusTests {
    @Test func theFuzzCorpusReplaysWithEveryRuleKept() throws {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: corpus.path)
        let result = try CommandLineTool("modelkit-sync-fuzz").run(corpus.path)
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("\(inputs.count) inputs replayed, every rule kept"))
    }
}
