import Foundation

/// How a fetch that sees unsaved changes puts them among the stored rows. ``ModelContext/fetch(_:)``
/// merges models and ``ModelContext/pendingResults(_:plan:)`` merges keys; both merge here, so a
/// fetch, its identifiers and its count agree on order.
enum PendingMerge {
    /// `items` sorted by `compare`, keeping their given order among equals.
    static func stableSorted<T>(_ items: [T], by compare: (T, T) -> ComparisonResult) -> [T] {
        items.enumerated().sorted { lhs, rhs in
            switch compare(lhs.element, rhs.element) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: lhs.offset < rhs.offset
            }
        }.map(\.element)
    }

    /// Merges `loose`, sorted, into `storedCount` stored rows in order: each loose item goes
    /// before the first stored row it sorts ahead of, so stored rows come first among equals.
    /// Each is found by binary search from where the previous one went: a few comparisons per
    /// loose item, however many rows there are.
    ///
    /// Calls `stored` with each run of stored positions and `looseItem` with each loose item, in
    /// the merged order.
    static func merge<Loose>(
        _ loose: [Loose], intoStored storedCount: Int, sortsAhead: (Loose, _ storedPosition: Int) -> Bool,
        stored: (Range<Int>) -> Void, looseItem: (Loose) -> Void
    ) {
        var taken = 0
        for candidate in loose {
            var (low, high) = (taken, storedCount)
            while low < high {
                let middle = (low + high) / 2
                if sortsAhead(candidate, middle) { high = middle } else { low = middle + 1 }
            }
            if taken < low { stored(taken..<low) }
            taken = low
            looseItem(candidate)
        }
        if taken < storedCount { stored(taken..<storedCount) }
    }
}
