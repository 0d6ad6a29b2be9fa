/// The stored models a context has in memory, one instance per row.
///
/// The map holds its models strongly (weak references cost a side table per model), and sweeps out
/// the ones nothing else references whenever it has doubled since the last sweep, so memory follows
/// the models in use rather than every row ever loaded.
struct IdentityMap {
    private var models: [RowKey: AnyObject] = [:]
    private var sweepAt = 4096

    var isEmpty: Bool { models.isEmpty }
    var count: Int { models.count }

    subscript(key: RowKey) -> AnyObject? {
        models[key]
    }

    mutating func insert(_ model: AnyObject, for key: RowKey) {
        models[key] = model
        if models.count >= sweepAt { sweep() }
    }

    @discardableResult
    mutating func removeValue(forKey key: RowKey) -> AnyObject? {
        models.removeValue(forKey: key)
    }

    /// Drops the models only the map references.
    mutating func sweep() {
        var released: [RowKey] = []
        // Walk by index rather than `indices`, which would keep a second reference to the storage
        // and make every value look shared.
        var index = models.startIndex
        while index != models.endIndex {
            if isKnownUniquelyReferenced(&models.values[index]) { released.append(models.keys[index]) }
            index = models.index(after: index)
        }
        for key in released { models[key] = nil }
        sweepAt = max(4096, models.count * 2)
    }
}
