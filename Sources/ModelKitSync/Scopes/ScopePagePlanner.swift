/// What a scoped device holds, as the server recorded it: its view. Each row the server sent it of
/// a scoped entity, by reference, with its identifier.
typealias ScopeView = [SyncIDs.RowRef: String]

/// A page of a scoped pull, decided: which rows go in full, which as tombstones, which leave,
/// and how the device's view changes.
struct ScopePage: Equatable {
    /// Rows to describe in full: changed rows the user reads, then rows entering the scope.
    var send: [SyncIDs.RowRef] = []
    /// Changed rows that are gone and that the device may know of.
    var tombstones: [SyncIDs.RowRef] = []
    /// Rows the device holds that the user no longer reads: identifier and entity.
    var leaves: [(gid: String, ref: SyncIDs.RowRef)] = []
    /// Rows of scoped entities the page brings that the view lacks.
    var added: [SyncIDs.RowRef] = []
    /// Rows of the view that the page removes (leaving, or gone).
    var removed: [String] = []
    /// Whether rows entering the scope remain for the next page.
    var more = false

    static func == (lhs: ScopePage, rhs: ScopePage) -> Bool {
        lhs.send == rhs.send && lhs.tombstones == rhs.tombstones && lhs.leaves.map(\.gid) == rhs.leaves.map(\.gid)
            && lhs.added == rhs.added && lhs.removed == rhs.removed && lhs.more == rhs.more
    }
}

/// Decides a page of a scoped pull from the rows history lists, the device's view, and what the
/// user reads now, with no database. The rules:
///
/// - A changed row goes in full if the user reads it; a row of a scoped entity the user does
///   not read never goes, nor does its tombstone unless the device holds the row.
/// - A row the device holds that the user no longer reads leaves it: not a delete.
/// - A row the user reads now that the device lacks enters, changed or not, up to the page's
///   limit; the rest enter on the next page.
struct ScopePagePlanner {
    /// Whether rows of an entity are scoped.
    let isScoped: (String) -> Bool
    /// Whether the user reads a row now (rows of unscoped entities always).
    let reads: (SyncIDs.RowRef) -> Bool

    /// Plans a page. `changed` lists the rows history names, in order; `present`, those of them
    /// still stored; `readable`, every row of a scoped entity the user reads, in a stable order.
    func plan(changed: [SyncIDs.RowRef], present: Set<SyncIDs.RowRef>, view: ScopeView, readable: [SyncIDs.RowRef], limit: Int) -> ScopePage {
        var page = ScopePage()
        var listed = Set<SyncIDs.RowRef>()
        for ref in changed where listed.insert(ref).inserted {
            let scoped = isScoped(ref.entity)
            if !present.contains(ref) {
                guard !scoped || view[ref] != nil else { continue }
                page.tombstones.append(ref)
                if let gid = view[ref] { page.removed.append(gid) }
            } else if reads(ref) {
                page.send.append(ref)
                if scoped, view[ref] == nil { page.added.append(ref) }
            }
        }
        let gone = Set(page.tombstones)
        for (ref, gid) in view.sorted(by: { $0.value < $1.value }) where !gone.contains(ref) && !reads(ref) {
            page.leaves.append((gid, ref))
            page.removed.append(gid)
        }
        var room = max(0, limit - page.send.count)
        for ref in readable where view[ref] == nil && !listed.contains(ref) {
            guard room > 0 else {
                page.more = true
                break
            }
            listed.insert(ref)
            page.send.append(ref)
            page.added.append(ref)
            room -= 1
        }
        return page
    }
}
