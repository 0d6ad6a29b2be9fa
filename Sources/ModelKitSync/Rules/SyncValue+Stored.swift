import ModelKit

extension SyncValue {
    /// The wire form of an attribute's stored value.
    init(_ stored: SQLValue) {
        switch stored {
        case .null: self = .null
        case .integer(let value): self = .integer(value)
        case .real(let value): self = .real(value)
        case .text(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        }
    }

    /// The stored form of an attribute's wire value; NULL for a relationship's.
    var sqlValue: SQLValue {
        switch self {
        case .null, .reference, .references: .null
        case .integer(let value): .integer(value)
        case .real(let value): .real(value)
        case .text(let value): .text(value)
        case .blob(let value): .blob(value)
        }
    }
}
