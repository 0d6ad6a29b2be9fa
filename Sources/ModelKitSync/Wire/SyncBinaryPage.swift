import Foundation

/// A ``SyncPullResponse`` in the compact binary form HTTP negotiates for pulls
/// (``mediaType``): several times smaller and faster to read than its JSON, which stays the
/// default and the form for other languages.
///
/// Layout (integers are unsigned LEB128 varints unless said otherwise; a string is its UTF-8
/// length, then its bytes):
///
/// - the magic `MKSP` and a version byte, 1;
/// - a flags byte (1: ``SyncPullResponse/hasMore``, 2: ``SyncPullResponse/isFullDownload``),
///   the cursor;
/// - the string table: a count, then the strings. Entity names, property names and clocks name
///   their entry by index, as they repeat on every row;
/// - the merged identifiers: a count, then old and new, strings;
/// - the changes: a count, then per change its entity (a table index), its identifier, a flags
///   byte (1: deleted, 2: left scope), a field count and per field its name and clock (table
///   indexes) and its value: a kind byte, then for an integer its zigzag varint, for a double
///   its bits (8 bytes, little-endian), for text, a blob or a to-one the bytes, for a to-many
///   a count and the identifiers.
///
/// Reading it is safe on any bytes: every length and count is checked against the bytes left
/// before anything is allocated for it, and anything malformed throws
/// ``SyncError/Code/malformedMessage``.
enum SyncBinaryPage {
    /// The media type a client names in `Accept` to be answered in this form.
    static let mediaType = "application/vnd.modelkit-sync"
    private static let magic: [UInt8] = Array("MKSP".utf8)
    private static let version: UInt8 = 1

    // MARK: Writing

    static func encode(_ page: SyncPullResponse) -> Data {
        var table = StringTable()
        var body = ByteWriter()
        body.varint(UInt64(page.merged.count))
        for (old, new) in page.merged.sorted(by: { $0.key < $1.key }) {
            body.string(old)
            body.string(new)
        }
        body.varint(UInt64(page.changes.count))
        for change in page.changes {
            body.varint(table.index(of: change.entity))
            body.string(change.id)
            body.bytes.append((change.deleted ? 1 : 0) | (change.leftScope ? 2 : 0))
            body.varint(UInt64(change.fields.count))
            for (name, field) in change.fields {
                body.varint(table.index(of: name))
                body.varint(table.index(of: field.clock))
                body.value(field.value)
            }
        }
        var head = ByteWriter()
        head.bytes.reserveCapacity(body.bytes.count + 64 + table.strings.count * 16)
        head.bytes += magic
        head.bytes.append(version)
        head.bytes.append((page.hasMore ? 1 : 0) | (page.isFullDownload ? 2 : 0))
        head.string(page.cursor)
        head.varint(UInt64(table.strings.count))
        for string in table.strings { head.string(string) }
        head.bytes += body.bytes
        return Data(head.bytes)
    }

    private struct StringTable {
        var strings: [String] = []
        var indexes: [String: UInt64] = [:]

        mutating func index(of string: String) -> UInt64 {
            if let index = indexes[string] { return index }
            let index = UInt64(strings.count)
            strings.append(string)
            indexes[string] = index
            return index
        }
    }

    private struct ByteWriter {
        var bytes: [UInt8] = []

        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }

        mutating func string(_ string: String) {
            var string = string
            string.withUTF8 { utf8 in
                varint(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func value(_ value: SyncValue) {
            switch value {
            case .null: bytes.append(0)
            case .integer(let integer):
                bytes.append(1)
                varint(UInt64(bitPattern: (integer << 1) ^ (integer >> 63)))
            case .real(let real):
                bytes.append(2)
                withUnsafeBytes(of: real.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
            case .text(let text):
                bytes.append(3)
                string(text)
            case .blob(let blob):
                bytes.append(4)
                varint(UInt64(blob.count))
                bytes.append(contentsOf: blob)
            case .reference(let gid):
                bytes.append(5)
                string(gid)
            case .references(let gids):
                bytes.append(6)
                varint(UInt64(gids.count))
                for gid in gids { string(gid) }
            }
        }
    }

    // MARK: Reading

    /// The page `data` holds.
    /// - Throws: ``SyncError/Code/malformedMessage`` for anything but a page this form writes.
    static func decode(_ data: Data) throws -> SyncPullResponse {
        try data.withUnsafeBytes { buffer in
            var reader = ByteReader(buffer)
            guard try reader.take(magic.count).elementsEqual(magic) else { throw ByteReader.malformed("does not start as a binary sync page") }
            guard try reader.byte() == version else { throw ByteReader.malformed("is of a version this device does not read") }
            let flags = try reader.byte()
            guard flags & ~3 == 0 else { throw ByteReader.malformed("has unknown flags") }
            let cursor = try reader.string()
            let tableCount = try reader.count()
            var table: [String] = []
            table.reserveCapacity(tableCount)
            for _ in 0..<tableCount { table.append(try reader.string()) }
            func entry() throws -> String {
                let index = try reader.varint()
                guard index < UInt64(table.count) else { throw ByteReader.malformed("names string \(index) of a table of \(table.count)") }
                return table[Int(index)]
            }
            var merged: [String: String] = [:]
            for _ in 0..<(try reader.count()) { merged[try reader.string()] = try reader.string() }
            let changeCount = try reader.count()
            var changes: [SyncChange] = []
            changes.reserveCapacity(changeCount)
            for _ in 0..<changeCount {
                let entity = try entry()
                let id = try reader.string()
                let rowFlags = try reader.byte()
                guard rowFlags & ~3 == 0 else { throw ByteReader.malformed("has a row with unknown flags") }
                let fieldCount = try reader.count()
                var fields: [String: SyncField] = [:]
                fields.reserveCapacity(fieldCount)
                for _ in 0..<fieldCount {
                    let name = try entry()
                    let clock = try entry()
                    fields[name] = SyncField(value: try reader.value(), clock: clock)
                }
                changes.append(SyncChange(entity: entity, id: id, deleted: rowFlags & 1 != 0, fields: fields, leftScope: rowFlags & 2 != 0))
            }
            guard reader.isAtEnd else { throw ByteReader.malformed("has bytes after its last row") }
            return SyncPullResponse(changes: changes, cursor: cursor, hasMore: flags & 1 != 0, isFullDownload: flags & 2 != 0, merged: merged)
        }
    }

    private struct ByteReader {
        let buffer: UnsafeRawBufferPointer
        var offset = 0

        init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

        var isAtEnd: Bool { offset == buffer.count }

        static func malformed(_ what: String) -> SyncError {
            SyncError(.malformedMessage, "the server's binary pull page \(what); pull again, or ask for JSON")
        }

        mutating func byte() throws -> UInt8 {
            guard offset < buffer.count else { throw Self.malformed("is cut short") }
            defer { offset += 1 }
            return buffer[offset]
        }

        mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
            guard count <= buffer.count - offset else { throw Self.malformed("is cut short") }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
        }

        mutating func varint() throws -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let byte = try self.byte()
                guard shift < 64, shift < 63 || byte <= 1 else { throw Self.malformed("has a number past 64 bits") }
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        /// A count or a length: never more than the bytes left, as each element takes one at
        /// least, so that a length field cannot make a large allocation.
        mutating func count() throws -> Int {
            let count = try varint()
            guard count <= UInt64(buffer.count - offset) else { throw Self.malformed("counts \(count) items in \(buffer.count - offset) bytes") }
            return Int(count)
        }

        mutating func string() throws -> String {
            let bytes = try take(try count())
            guard let string = String(validating: bytes, as: UTF8.self) else { throw Self.malformed("has text that is not UTF-8") }
            return string
        }

        mutating func value() throws -> SyncValue {
            switch try byte() {
            case 0: return .null
            case 1:
                let zigzag = try varint()
                return .integer(Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1))
            case 2:
                var bits: UInt64 = 0
                for (index, byte) in try take(8).enumerated() { bits |= UInt64(byte) << (8 * UInt64(index)) }
                return .real(Double(bitPattern: bits))
            case 3: return .text(try string())
            case 4: return .blob(Data(try take(try count())))
            case 5: return .reference(try string())
            case 6:
                let count = try count()
                var gids: [String] = []
                gids.reserveCapacity(count)
                for _ in 0..<count { gids.append(try string()) }
                return .references(gids)
            case let kind: throw Self.malformed("holds a value of unknown kind \(kind)")
            }
        }
    }
}
