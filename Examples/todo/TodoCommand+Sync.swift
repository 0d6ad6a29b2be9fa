import Foundation
import ModelKitSync
import Observation
import SwiftData
import TodoList

#if canImport(Darwin)
// On Apple platforms `import SwiftData` is Apple's framework, whose containers ModelKitSync does not sync.
extension TodoCommand {
    private static let needsModelKit = Failure(description: "sync and watch need the list in ModelKit, which `import SwiftData` is off Apple platforms")

    @MainActor
    func sync(with target: SyncTarget) async throws -> [String] { throw Self.needsModelKit }

    @MainActor
    func watch(_ target: SyncTarget, _ output: Output) async throws { throw Self.needsModelKit }
}
#else
extension TodoCommand {
    /// `sync`: one push and pull, reported in a line, and a line per change the server refused.
    @MainActor
    func sync(with target: SyncTarget) async throws -> [String] {
        let client = try SyncClient(container: try openContainer(), transport: target.transport)
        let report: SyncReport
        do {
            report = try await client.sync()
        } catch {
            throw Failure(description: target.explain(error))
        }
        let summary = "synced with \(target.url): pushed \(report.pushed), pulled \(report.pulled), "
            + "conflicts \(report.conflicts), rejected \(report.rejected)"
        return [summary] + report.rejections.map { "rejected: \($0)" }
    }

    /// What `watch` hears while it runs.
    private enum Event: Sendable {
        /// The list may have changed: a pull, a local save, another process's save.
        case listChanged
        case status(SyncStatus)
        /// The live sync stopped on an error retrying cannot fix.
        case failed(SyncError)
    }

    /// `watch`: syncs once (failing at once if the server cannot be reached or refuses), then
    /// runs ``SyncClient/run()`` and prints a line per change of the list, from pulls and from
    /// local saves alike, and a problem line when the sync starts failing, fails another way, or
    /// recovers, until the task is cancelled.
    @MainActor
    func watch(_ target: SyncTarget, _ output: Output) async throws {
        let container = try openContainer()
        let client = try SyncClient(container: container, transport: target.transport)
        try await withViewModel(on: container) { viewModel in
            let (events, feed) = AsyncStream.makeStream(of: Event.self)
            // Reads the list and hears of its next change in one step, so no change falls between.
            func snapshot() -> ListSnapshot {
                withObservationTracking {
                    MainActor.assumeIsolated { ListSnapshot(viewModel.todoItems) }
                } onChange: {
                    feed.yield(.listChanged)
                }
            }
            var shown = snapshot()
            do {
                try await client.sync()
            } catch {
                throw Failure(description: target.explain(error))
            }
            output.line("watching \(target.url) (Ctrl-C stops)")
            let live = Task {
                do {
                    try await client.run()
                } catch {
                    feed.yield(.failed(error as? SyncError ?? SyncError(.deviceFailed, "\(error)")))
                }
            }
            let statuses = Task {
                for await status in client.statusUpdates { feed.yield(.status(status)) }
            }
            defer {
                live.cancel()
                statuses.cancel()
            }
            // What the status last said went wrong; its message varies from one retry to the next.
            var lastProblem: SyncError.Code?
            // Ends when the task is cancelled.
            for await event in events {
                switch event {
                case .listChanged:
                    let now = snapshot()
                    for line in now.lines(since: shown) { output.line(line) }
                    shown = now
                case .status(let status) where status.lastError?.code != lastProblem:
                    if let error = status.lastError {
                        output.problem("todo: \(target.explain(error)); retrying")
                    } else {
                        output.problem("todo: syncing with \(target.url) again")
                    }
                    lastProblem = status.lastError?.code
                case .status:
                    break
                case .failed(let error):
                    throw Failure(description: target.explain(error))
                }
            }
            live.cancel()
            await live.value
        }
    }
}
#endif
