import Foundation
import ModelKit
import Observation
import Synchronization

/// The book of Apple's `ResultsObserver` examples (named apart from the relationship tests' `Book`).
@Model final class Novel {
    var title: String
    var genre: String
    var series: String?
    var isPublished: Bool
    var rating = 0

    init(_ title: String, genre: String = "fiction", series: String? = nil, isPublished: Bool = true) {
        self.title = title
        self.genre = genre
        self.series = series
        self.isPublished = isPublished
    }
}

/// Whether what `read` reads changes: armed by `withObservationTracking`, re-armed after each
/// change, so a test can count the changes a series of saves makes.
@MainActor final class ChangeCounter {
    private nonisolated let count = Mutex(0)
    private let read: @MainActor () -> Void

    init(_ read: @escaping @MainActor () -> Void) {
        self.read = read
        arm()
    }

    var changes: Int { count.withLock { $0 } }

    private func arm() {
        withObservationTracking(read) { [weak self] in
            self?.count.withLock { $0 += 1 }
            // Re-armed once the change is applied, as SwiftUI re-reads after a change; not once
            // the test is done with the counter.
            Task { @MainActor [weak self] in self?.arm() }
        }
    }

    /// Waits until at least `expected` changes were seen, or `seconds` passed; true if they were.
    func wait(for expected: Int = 1, seconds: Double = 5) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while changes < expected, Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        // Lets the refresh that fired the change finish before the test reads the results.
        await Task.yield()
        return changes >= expected
    }

    /// Whether no change arrives within `seconds`.
    func staysQuiet(for seconds: Double = 0.4) async -> Bool {
        let before = changes
        try? await Task.sleep(for: .seconds(seconds))
        return changes == before
    }
}
