import Foundation
import ModelKit

/// What sync keeps of a row's fields, by property: on a device, the base value (what it last had
/// from the server) and the clock of the edit that set it; on the server, the clock. Stored in
/// one column of the row's identifier, in a compact binary form, so that a row's bookkeeping is
/// one statement, not one per property.
struct FieldRecord: Equatable {
    struct Entry: Equatable {
        var base: SyncValue?
        var clock: String
    }

    var entries: [String: Entry] = [:]

    subscript(property: String) -> Entry? {
        get { entries[property] }
        set { entries[property] = newValue }
    }

    // MARK: Binary form

    /// The stored form: a version byte, then per property its name, whether it has a base, the
    /// base and the clock.
    var stored: SQLValue {
        // Built as bytes, then one `Data`: appending to a `Data` piece by piece costs several
        // times more, and a page writes a record per row.
        var data: [UInt8] = [1]
        data.reserveCapacity(16 + entries.count * 48)
        for (name, entry) in entries {
            data.appendString(name)
            if let base = entry.base {
                data.append(1)
                data.appendValue(base)
            } else {
                data.append(0)
            }
            data.appendString(entry.clock)
        }
        return .blob(Data(data))
    }

    init() {}

    /// The record stored as `value`; empty for NULL.
    init(_ value: SQLValue) throws {
        guard case .blob(let data) = value else { return }
        var reader = BinaryReader(data)
        guard try reader.byte() == 1 else { throw SyncError(.malformedMessage, "a sync field record of an unknown version") }
        while !reader.isAtEnd {
            let name = try reader.string()
            let base = try reader.byte() == 1 ? try reader.value() : nil
            entries[name] = Entry(base: base, clock: try reader.string())
        }
    }
}

extension [UInt8] {
    mutating func appendInteger<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func appendString(_ string: String) {
        var string = string
        string.withUTF8 { bytes in
            appendInteger(UInt32(bytes.count))
            append(contentsOf: bytes)
        }
    }

    mutating func appendValue(_ value: SyncValue) {
        switch value {
        case .null: append(0)
        case .integer(let integer):
            append(1)
            appendInteger(integer)
        case .real(let real):
            append(2)
            appendInteger(real.bitPattern)
        case .text(let text):
            append(3)
            appendString(text)
        case .blob(let blob):
            append(4)
            appendInteger(UInt32(blob.count))
            append(contentsOf: blob)
        case .reference(let gid):
            append(5)
            appendString(gid)
        case .references(let gids):
            append(6)
            appendInteger(UInt32(gids.count))
            for gid in gids { appendString(gid) }
        }
    }
}

/// Reads what the `Data` extension writes.
struct BinaryReader {
    private let data: Data
    private var offset: Int

    init(_ data: Data) {
        self.data = data
        offset = data.startIndex
    }

    var isAtEnd: Bool { offset >= data.endIndex }

    mutating func byte() throws -> UInt8 {
        guard offset < data.endIndex else { throw SyncError(.malformedMessage, "a sync field record is cut short") }
        defer { offset += 1 }
        return data[offset]
    }

    mutating func integer<T: FixedWidthInteger>(_: T.Type) throws -> T {
        let size = MemoryLayout<T>.size
        guard offset + size <= data.endIndex else { throw SyncError(.malformedMessage, "a sync field record is cut short") }
        var value: T = 0
        _ = withUnsafeMutableBytes(of: &value) { data.copyBytes(to: $0, from: offset..<offset + size) }
        offset += size
        return T(littleEndian: value)
    }

    mutating func bytes(_ count: Int) throws -> Data {
        guard count >= 0, offset + count <= data.endIndex else { throw SyncError(.malformedMessage, "a sync field record is cut short") }
        defer { offset += count }
        return data.subdata(in: offset..<offset + count)
    }

    mutating func string() throws -> String {
        String(decoding: try bytes(Int(try integer(UInt32.self))), as: UTF8.self)
    }

    mutating func value() throws -> SyncValue {
        switch try byte() {
        case 0: return .null
        case 1: return .integer(try integer(Int64.self))
        case 2: return .real(Double(bitPattern: try integer(UInt64.self)))
        case 3: return .text(try string())
        case 4: return .blob(try bytes(Int(try integer(UInt32.self))))
        case 5: return .reference(try string())
        case 6: return .references(try (0..<Int(try integer(UInt32.self))).map { _ in try string() })
        default: throw SyncError(.malformedMessage, "a sync field record holds an unknown kind of value")
        }
    }
}
