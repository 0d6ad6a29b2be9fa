/// A property's string with a NUL character (U+0000), which PostgreSQL's text cannot hold
/// (``SQLDialect/ValueRules/textHoldsNUL``), found before its row is written: the underlying error of a
/// ``DatabaseError`` with code ``DatabaseError/Code/unsupportedValue``.
struct TextWithNUL: Error, CustomStringConvertible {
    let entity: String
    let property: String

    /// The error a save throws.
    var databaseError: DatabaseError {
        let message = "\(entity).\(property) holds a string with a NUL character (U+0000), which PostgreSQL text cannot hold"
        return DatabaseError(code: .unsupportedValue, message: message, sql: nil, underlying: self)
    }

    var description: String {
        "PostgreSQL cannot store \(entity).\(property): it holds a string with a NUL character (U+0000), which its text "
            + "cannot hold. Nothing was written; remove the character, or keep such values as Data."
    }
}
