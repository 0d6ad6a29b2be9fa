// Apple's ResultsObserver needs iOS 27 and macOS 27: on Apple platforms this runs only there.
#if !canImport(Darwin)
import AppState
import Foundation
import Observation
import SwiftData
import Testing

/// A view model that keeps a `ResultsObserver` on the container's main context, beside
/// `Application.modelState`: both show the same rows, and both report the saves that change them.
@MainActor
final class SortedItemsViewModel {
    let observer: ResultsObserver<Item, Never>

    init() throws {
        let context = Application.modelContext(\.modelContainer)
        observer = try ResultsObserver(sortBy: [SortDescriptor(\.title)], modelContext: context)
    }

    var titles: [String] { observer.results.map(\.title) }
}

@MainActor
@Suite struct ModelStateResultsObserverTests {
    @Test func aResultsObserverOnTheMainContextAgreesWithModelState() async throws {
        let container = try ModelContainer(for: Item.self, Tag.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try await Application.withIsolatedScope {
            let token = Application.override(\.modelContainer, with: container)
            defer { withExtendedLifetime(token) {} }
            let viewModel = try SortedItemsViewModel()
            let state = Application.modelState(\.items)
            #expect(viewModel.observer.modelContext === state.context)

            let observerFired = FireCount()
            let stateFired = FireCount()
            withObservationTracking { _ = viewModel.titles } onChange: { observerFired.fire() }
            withObservationTracking { _ = state.models } onChange: { stateFired.fire() }

            // Saved elsewhere: both hear it, and read the same rows.
            let background = ModelContext(container)
            background.insert(Item(title: "b"))
            background.insert(Item(title: "a"))
            try background.save()
            let deadline = Date().addingTimeInterval(60)
            while observerFired.value == 0 || stateFired.value == 0 || viewModel.titles.count < 2, Date() < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(observerFired.value == 1)
            #expect(stateFired.value == 1)
            #expect(viewModel.titles == ["a", "b"])
            #expect(viewModel.titles == state.models.map(\.title))

            // A save of another type: neither hears it.
            withObservationTracking { _ = viewModel.titles } onChange: { observerFired.fire() }
            withObservationTracking { _ = state.models } onChange: { stateFired.fire() }
            background.insert(Tag(name: "other"))
            try background.save()
            try await Task.sleep(for: .milliseconds(300))
            #expect(observerFired.value == 1)
            #expect(stateFired.value == 1)

            // Through ModelState's own mutators: both hear it.
            state.insert(Item(title: "c"))
            // The observer refreshes on its actor once it has reported the change: on a loaded
            // machine that is some time after the report.
            let secondDeadline = Date().addingTimeInterval(60)
            while observerFired.value == 1 || stateFired.value == 1 || viewModel.titles.count < 3, Date() < secondDeadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(viewModel.titles == ["a", "b", "c"])
            #expect(viewModel.titles == state.models.map(\.title))
        }
    }
}
#endif
