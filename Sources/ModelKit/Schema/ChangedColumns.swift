/// The columns of a model changed since its last save: a bit per column, with a set for models of
/// more than 64 columns, so that the common case allocates nothing.
///
/// Nine bytes, so that a model's ``ModelStorage/State`` packs: the set replaces the bits once a
/// column past 63 changes, and columns are only ever all removed at once.
struct ChangedColumns: Hashable {
    private enum Columns: Hashable {
        case bits(UInt64)
        /// Every changed column, one of them past 63.
        case many(Set<Int>)
    }

    private var columns = Columns.bits(0)

    var isEmpty: Bool {
        switch columns {
        case .bits(let bits): bits == 0
        case .many: false
        }
    }

    mutating func insert(_ column: Int) {
        switch columns {
        case .bits(let bits) where column < 64:
            columns = .bits(bits | 1 << UInt64(column))
        case .bits:
            var all = Set(sorted)
            all.insert(column)
            columns = .many(all)
        case .many(var all):
            columns = .bits(0)
            all.insert(column)
            columns = .many(all)
        }
    }

    func contains(_ column: Int) -> Bool {
        switch columns {
        case .bits(let bits): column < 64 && bits & (1 << UInt64(column)) != 0
        case .many(let all): all.contains(column)
        }
    }

    mutating func removeAll() {
        columns = .bits(0)
    }

    /// The changed columns, in ascending order.
    var sorted: [Int] {
        switch columns {
        case .bits(var rest):
            var sorted: [Int] = []
            sorted.reserveCapacity(rest.nonzeroBitCount)
            while rest != 0 {
                sorted.append(rest.trailingZeroBitCount)
                rest &= rest - 1
            }
            return sorted
        case .many(let all):
            return all.sorted()
        }
    }
}
