/// The columns of a model changed since its last save: a bit per column, with a set for models of
/// more than 64 columns, so that the common case allocates nothing.
struct ChangedColumns: Hashable {
    private var bits: UInt64 = 0
    private var beyond64: Set<Int> = []

    var isEmpty: Bool { bits == 0 && beyond64.isEmpty }

    mutating func insert(_ column: Int) {
        if column < 64 { bits |= 1 << UInt64(column) } else { beyond64.insert(column) }
    }

    func contains(_ column: Int) -> Bool {
        column < 64 ? bits & (1 << UInt64(column)) != 0 : beyond64.contains(column)
    }

    mutating func removeAll() {
        bits = 0
        if !beyond64.isEmpty { beyond64.removeAll() }
    }

    /// The changed columns, in ascending order.
    var sorted: [Int] {
        var columns: [Int] = []
        columns.reserveCapacity(bits.nonzeroBitCount + beyond64.count)
        var rest = bits
        while rest != 0 {
            columns.append(rest.trailingZeroBitCount)
            rest &= rest - 1
        }
        return beyond64.isEmpty ? columns : columns + beyond64.sorted()
    }
}
