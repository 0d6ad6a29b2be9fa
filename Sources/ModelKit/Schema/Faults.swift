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
    /// dictionary cost more than the lookups save. One to-one's fault is kept apart, without the
    /// array: a row whose only relationship left to load is its to-one (a child's parent) makes
    /// no allocation, and the rows of an entity whose lazy relationships are to-manys share one
    /// array (see ``Schema/Entity/toManyFaults``).
    struct Faults: ExpressibleByDictionaryLiteral {
        typealias Entry = (column: Int, fault: Fault)

        /// The column of the to-one kept apart, plus one; 0 for none. Columns past 254 go in
        /// ``entries``.
        private(set) var toOneColumn: UInt8 = 0
        /// The key the to-one kept apart holds.
        private(set) var toOneKey: Int64 = 0
        private(set) var entries: [Entry] = []

        init(dictionaryLiteral elements: (Int, Fault)...) {
            for (column, fault) in elements { append(fault, at: column) }
        }

        init() {}

        /// Faults at distinct columns, in the order they are searched.
        init(entries: [Entry]) {
            self.entries = entries
        }

        /// The parts ``ModelStorage/State`` keeps in fields of their own.
        init(toOneColumn: UInt8, toOneKey: Int64, entries: [Entry]) {
            (self.toOneColumn, self.toOneKey, self.entries) = (toOneColumn, toOneKey, entries)
        }

        /// Adds the fault of a relationship that has none yet.
        mutating func append(_ fault: Fault, at column: Int) {
            if toOneColumn == 0, case .toOne(let key) = fault, column < Int(UInt8.max) {
                (toOneColumn, toOneKey) = (UInt8(column + 1), key)
            } else {
                entries.append((column, fault))
            }
        }

        var isEmpty: Bool { toOneColumn == 0 && entries.isEmpty }

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

        /// Whether the to-one kept apart under `toOneColumn` (its column plus one, 0 for none) is
        /// the one at `column`: for ``ModelStorage/hasFault(at:)``, which reads the state's fields.
        static func keepsApart(_ column: Int, in toOneColumn: UInt8) -> Bool {
            toOneColumn != 0 && Int(toOneColumn) - 1 == column
        }

        private func keepsApart(_ column: Int) -> Bool { Self.keepsApart(column, in: toOneColumn) }

        /// The fault of the relationship at `column`; setting nil removes it.
        subscript(column: Int) -> Fault? {
            get {
                if keepsApart(column) { return .toOne(toOneKey) }
                return entries.first { $0.column == column }?.fault
            }
            set {
                if keepsApart(column) {
                    toOneColumn = 0
                    if let newValue { append(newValue, at: column) }
                } else if let index = entries.firstIndex(where: { $0.column == column }) {
                    if let newValue { entries[index].fault = newValue } else { entries.remove(at: index) }
                } else if let newValue {
                    append(newValue, at: column)
                }
            }
        }

        /// Removes and returns the fault of the relationship at `column`.
        mutating func removeValue(forKey column: Int) -> Fault? {
            if keepsApart(column) {
                toOneColumn = 0
                return .toOne(toOneKey)
            }
            guard let index = entries.firstIndex(where: { $0.column == column }) else { return nil }
            return entries.remove(at: index).fault
        }
    }
}
