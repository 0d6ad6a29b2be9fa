extension ModelStorage {
    /// A property waiting to be loaded.
    enum Fault {
        /// A to-one, with the target's primary key.
        case toOne(Int64)
        /// A to-many.
        case toMany
        /// An attribute a fetch with `propertiesToFetch` left out: it holds a placeholder until
        /// the first read of any such attribute loads them all from the row.
        case unfetched
    }

    /// A model's relationships (and attributes a partial fetch left out) not loaded yet, by
    /// property index.
    ///
    /// A short array searched in order rather than a dictionary: a model has a few relationships,
    /// and every loaded row with relationships makes one of these, where hashing and growing a
    /// dictionary cost more than the lookups save.
    struct Faults: ExpressibleByDictionaryLiteral {
        private var entries: [(column: Int, fault: Fault)] = []

        init(dictionaryLiteral elements: (Int, Fault)...) {
            entries = elements.map { (column: $0.0, fault: $0.1) }
        }

        init() {}

        /// Adds the fault of a relationship that has none yet.
        mutating func append(_ fault: Fault, at column: Int) {
            entries.append((column, fault))
        }

        var isEmpty: Bool { entries.isEmpty }

        /// The columns of the attributes a partial fetch left out.
        var unfetchedColumns: [Int] {
            entries.compactMap { entry in
                guard case .unfetched = entry.fault else { return nil }
                return entry.column
            }
        }

        /// Removes the faults of the attributes a partial fetch left out.
        mutating func removeUnfetched() {
            entries.removeAll { entry in
                guard case .unfetched = entry.fault else { return false }
                return true
            }
        }

        /// The fault of the relationship at `column`; setting nil removes it.
        subscript(column: Int) -> Fault? {
            get { entries.first { $0.column == column }?.fault }
            set {
                if let index = entries.firstIndex(where: { $0.column == column }) {
                    if let newValue { entries[index].fault = newValue } else { entries.remove(at: index) }
                } else if let newValue {
                    entries.append((column, newValue))
                }
            }
        }

        /// Removes and returns the fault of the relationship at `column`.
        mutating func removeValue(forKey column: Int) -> Fault? {
            guard let index = entries.firstIndex(where: { $0.column == column }) else { return nil }
            return entries.remove(at: index).fault
        }
    }
}
