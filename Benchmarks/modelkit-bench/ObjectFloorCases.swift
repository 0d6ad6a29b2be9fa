import Foundation

#if canImport(SQLite3)
    import SQLite3
#else
    import CSQLite
#endif

/// What any engine that hands out a class instance per row pays before doing anything of its
/// own: hand-written SQLite calls reading every row into objects, against the same calls into
/// plain structs (the raw column). No ModelKit code runs in either column.
///
/// - `floor_one_object`: one final class instance a row.
/// - `floor_two_objects`: two a row, a model and a separate object for the engine's state, as
///   `@Model` classes and their `ModelStorage` were until the state moved into the model.
/// - `floor_state_inline`: one object a row holding the same state fields as the second object:
///   a model's shape now.
func objectFloorCases(rows n: Int, options: Options) throws -> [CaseResult] {
    guard options.wants("floor_one_object", "floor_two_objects", "floor_state_inline") else { return [] }
    return try withTemporaryDirectory { directory in
        let raw = RawStore(path: directory.appendingPathComponent("raw.sqlite").path)
        raw.createSchema()
        raw.insert(n)
        let structs = { seconds { precondition(raw.fetchAll().count == n) } }
        return [
            measureAlternating("floor_one_object", options, engine: { seconds { precondition(raw.fetchObjects(FloorItem.self) == n) } }, raw: structs),
            measureAlternating("floor_two_objects", options, engine: { seconds { precondition(raw.fetchObjects(FloorItemAndState.self) == n) } }, raw: structs),
            measureAlternating("floor_state_inline", options, engine: { seconds { precondition(raw.fetchObjects(FloorItemWithState.self) == n) } }, raw: structs),
        ].compactMap { $0 }
    }
}

/// A row's values as a class instance reads them.
protocol FloorObject: AnyObject {
    init(key: Int, name: String, value: Double, flag: Bool)
    func setKey(_ key: Int64)
}

final class FloorItem: FloorObject {
    var pk: Int64 = 0
    var key: Int
    var name: String
    var value: Double
    var flag: Bool
    init(key: Int, name: String, value: Double, flag: Bool) { (self.key, self.name, self.value, self.flag) = (key, name, value, flag) }
    func setKey(_ key: Int64) { pk = key }
}

/// The fields of `ModelStorage.State`: four references, a key, nine bytes of changed columns, flags.
struct FloorStateFields {
    var observers: AnyObject?
    var entity: AnyObject?
    var handle: AnyObject?
    var key: Int64 = 0
    var faults: AnyObject?
    var changed: (UInt64, UInt8) = (0, 0)
    var flags: UInt8 = 0
}

/// The state as an object of its own.
final class FloorState {
    var fields = FloorStateFields()
}

final class FloorItemAndState: FloorObject {
    let state = FloorState()
    var key: Int
    var name: String
    var value: Double
    var flag: Bool
    init(key: Int, name: String, value: Double, flag: Bool) { (self.key, self.name, self.value, self.flag) = (key, name, value, flag) }
    func setKey(_ key: Int64) { state.fields.key = key }
}

/// The same fields stored in the object, as a struct property is: inline.
final class FloorItemWithState: FloorObject {
    var state = FloorStateFields()
    var key: Int
    var name: String
    var value: Double
    var flag: Bool
    init(key: Int, name: String, value: Double, flag: Bool) { (self.key, self.name, self.value, self.flag) = (key, name, value, flag) }
    func setKey(_ key: Int64) { state.key = key }
}

extension RawStore {
    /// Every row read into a new `Object` each, as the raw fetch reads them into structs; returns
    /// how many. The objects are freed before it returns, as the engine's are in `fetch_all`.
    func fetchObjects<Object: FloorObject>(_ type: Object.Type) -> Int {
        let statement = prepare(#"SELECT "_pk", "key", "name", "value", "flag" FROM "BenchItem""#)
        defer { sqlite3_finalize(statement) }
        var objects: [Object] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            let object = Object(
                key: Int(sqlite3_column_int64(statement, 1)), name: String(cString: sqlite3_column_text(statement, 2)),
                value: sqlite3_column_double(statement, 3), flag: sqlite3_column_int64(statement, 4) != 0)
            object.setKey(sqlite3_column_int64(statement, 0))
            objects.append(object)
        }
        return objects.count
    }
}
