import Foundation

/// The changes of one transaction, packed into one blob of the history table.
///
/// The blob starts with a table of the entity and property names it uses, then lists the
/// changes in the order they were written. Consecutive inserts (or deletes without preserved
/// values) of one entity with consecutive keys, as a save of many new models or a batch delete
/// makes, are one run, so recording them costs a few bytes whatever their number. Integers are
/// LEB128 varints; a deleted model's preserved values are tagged SQLite values.
struct HistoryRecord {
    enum Kind: Equatable {
        case insert, update, delete
    }

    /// How each entry of the blob starts.
    private enum Tag: UInt8 {
        case insertRun = 0
        case update = 1
        case delete = 2
        case deleteRun = 3
    }

    /// One decoded change.
    struct Change: Equatable {
        var kind: Kind
        var entity: String
        var rowID: Int64
        /// The properties an update wrote.
        var attributes: [String] = []
        /// A delete's preserved values, by property name.
        var preserved: [String: SQLValue] = [:]
    }

    private var body: [UInt8] = []
    /// The numbers of the names met after the first `namesCompared` (those are found by
    /// comparison, see `name(_:)`).
    private var names: [String: UInt64] = [:]
    private var nameList: [String] = []
    private static let namesCompared = 8
    private var run: (tag: Tag, entity: UInt64, start: Int64, count: UInt64)?

    var isEmpty: Bool { body.isEmpty && run == nil }

    mutating func insert(entity: String, rowID: Int64) {
        extendRun(.insertRun, entity: name(entity), rowID: rowID)
    }

    /// Deletes of rows without preserved values, as a batch delete makes them.
    mutating func delete(entity: String, rowIDs: [Int64]) {
        let index = name(entity)
        for rowID in rowIDs { extendRun(.deleteRun, entity: index, rowID: rowID) }
    }

    private mutating func extendRun(_ tag: Tag, entity index: UInt64, rowID: Int64) {
        if let current = run, current.tag == tag, current.entity == index, current.start &+ Int64(current.count) == rowID {
            run!.count += 1
            return
        }
        flushRun()
        run = (tag, index, rowID, 1)
    }

    mutating func update(entity: String, rowID: Int64, attributes: some Collection<String>) {
        flushRun()
        body.append(Tag.update.rawValue)
        appendVarint(name(entity))
        appendVarint(UInt64(bitPattern: rowID))
        appendVarint(UInt64(attributes.count))
        for attribute in attributes { appendVarint(name(attribute)) }
    }

    mutating func delete(entity: String, rowID: Int64, preserved: [(name: String, value: SQLValue)]) {
        guard !preserved.isEmpty else { return extendRun(.deleteRun, entity: name(entity), rowID: rowID) }
        flushRun()
        body.append(Tag.delete.rawValue)
        appendVarint(name(entity))
        appendVarint(UInt64(bitPattern: rowID))
        appendVarint(UInt64(preserved.count))
        for (property, value) in preserved {
            appendVarint(name(property))
            append(value)
        }
    }

    /// The blob to store, written into one buffer sized once.
    mutating func encoded() -> Data {
        flushRun()
        var size = body.count + 10
        for name in nameList { size += name.utf8.count + 10 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        Self.appendVarint(UInt64(nameList.count), to: &bytes)
        for name in nameList {
            Self.appendVarint(UInt64(name.utf8.count), to: &bytes)
            bytes.append(contentsOf: name.utf8)
        }
        bytes.append(contentsOf: body)
        return Data(bytes)
    }

    // MARK: Decoding

    /// The changes `blob` records, with runs expanded into one change per row.
    /// - Throws: ``Damaged`` when the blob is not a record this type wrote.
    static func decode(_ blob: Data) throws -> [Change] {
        var changes: [Change] = []
        try visit(blob) { change, count in
            for offset in 0..<count {
                var row = change
                row.rowID = change.rowID &+ Int64(offset)
                changes.append(row)
            }
        }
        return changes
    }

    /// The primary keys `blob` inserts, updates and deletes, by entity name: what contexts merge.
    static func keys(in blob: Data) throws -> StoreChange {
        var change = StoreChange()
        try visit(blob) { recorded, count in
            let keys = (0..<count).map { recorded.rowID &+ Int64($0) }
            switch recorded.kind {
            case .insert: change.inserted[recorded.entity, default: []] += keys
            case .update: change.updated[recorded.entity, default: []] += keys
            case .delete: change.deleted[recorded.entity, default: []] += keys
            }
        }
        return change
    }

    /// A blob that cannot be decoded.
    struct Damaged: Error {}

    /// Calls `body` with each recorded change; a run comes once, with its row count.
    private static func visit(_ blob: Data, _ body: (Change, UInt64) throws -> Void) throws {
        var reader = Reader(bytes: [UInt8](blob))
        let nameCount = try reader.varint()
        var names: [String] = []
        for _ in 0..<nameCount {
            let length = try reader.count()
            names.append(String(decoding: try reader.take(length), as: UTF8.self))
        }
        func name() throws -> String {
            let index = try reader.varint()
            guard index < names.count else { throw Damaged() }
            return names[Int(index)]
        }
        while !reader.isAtEnd {
            guard let tag = Tag(rawValue: try reader.byte()) else { throw Damaged() }
            let kind: Kind = switch tag {
            case .insertRun: .insert
            case .update: .update
            case .delete, .deleteRun: .delete
            }
            var change = Change(kind: kind, entity: try name(), rowID: Int64(bitPattern: try reader.varint()))
            switch tag {
            case .insertRun, .deleteRun:
                let count = try reader.varint()
                guard (1...UInt64(UInt32.max)).contains(count) else { throw Damaged() }
                try body(change, count)
            case .update:
                for _ in 0..<(try reader.count()) { change.attributes.append(try name()) }
                try body(change, 1)
            case .delete:
                for _ in 0..<(try reader.count()) {
                    let property = try name()
                    change.preserved[property] = try reader.value()
                }
                try body(change, 1)
            }
        }
    }

    // MARK: Encoding helpers

    private mutating func name(_ text: String) -> UInt64 {
        // A save names the same few entities and properties over and over, as the same strings:
        // comparing them with the first names met is cheaper than hashing, so only later names
        // are hashed.
        for (index, name) in nameList.prefix(Self.namesCompared).enumerated() where name == text { return UInt64(index) }
        if nameList.count > Self.namesCompared, let index = names[text] { return index }
        let index = UInt64(nameList.count)
        if nameList.count >= Self.namesCompared { names[text] = index }
        nameList.append(text)
        return index
    }

    private mutating func flushRun() {
        guard let current = run else { return }
        run = nil
        body.append(current.tag.rawValue)
        appendVarint(current.entity)
        appendVarint(UInt64(bitPattern: current.start))
        appendVarint(current.count)
    }

    private mutating func appendVarint(_ value: UInt64) {
        Self.appendVarint(value, to: &body)
    }

    private static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    private mutating func append(_ value: SQLValue) {
        switch value {
        case .null:
            body.append(0)
        case .integer(let integer):
            body.append(1)
            appendVarint(UInt64(bitPattern: integer))
        case .real(let real):
            body.append(2)
            withUnsafeBytes(of: real.bitPattern.littleEndian) { body += $0 }
        case .text(let text):
            body.append(3)
            let utf8 = Array(text.utf8)
            appendVarint(UInt64(utf8.count))
            body += utf8
        case .blob(let data):
            body.append(4)
            appendVarint(UInt64(data.count))
            body += data
        }
    }

    /// Reads a blob front to back, throwing ``Damaged`` at any inconsistency.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() throws -> UInt8 {
            guard offset < bytes.count else { throw Damaged() }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                guard shift < 64 else { throw Damaged() }
                value |= UInt64(next & 0x7F) << shift
                if next < 0x80 { return value }
                shift += 7
            }
        }

        /// A varint that counts bytes or items still to come: never more than the blob holds.
        mutating func count() throws -> Int {
            let value = try varint()
            guard value <= UInt64(bytes.count - offset) else { throw Damaged() }
            return Int(value)
        }

        mutating func take(_ count: Int) throws -> ArraySlice<UInt8> {
            guard count <= bytes.count - offset else { throw Damaged() }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func value() throws -> SQLValue {
            switch try byte() {
            case 0: return .null
            case 1: return .integer(Int64(bitPattern: try varint()))
            case 2:
                let raw = try take(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                return .real(Double(bitPattern: raw))
            case 3: return .text(String(decoding: try take(try count()), as: UTF8.self))
            case 4: return .blob(Data(try take(try count())))
            default: throw Damaged()
            }
        }
    }
}
