extension PersistentIdentifier {
    /// The identifier of the row with `primaryKey` of `entityName` in the store
    /// `storeIdentifier`, as in SwiftData: for identifiers kept outside the store (a URL, a
    /// notification) and made again.
    ///
    /// ModelKit's primary keys are 64-bit integers. `primaryKey` is one of them, as an integer or
    /// as the text an identifier's `description` shows (`"42"` or `"p42"`).
    /// - Throws: ``ModelKitError/invalidIdentifier(_:reason:)`` when `primaryKey` is not such a
    ///   key.
    public static func identifier<T>(for storeIdentifier: String, entityName: String, primaryKey: T) throws -> PersistentIdentifier
    where T: Comparable, T: CustomStringConvertible, T: Decodable, T: Encodable, T: Hashable {
        let text = primaryKey.description
        let digits = text.hasPrefix("p") ? text.dropFirst() : Substring(text)
        guard let key = (primaryKey as? any BinaryInteger).flatMap({ Int64(exactly: $0) }) ?? Int64(digits) else {
            throw ModelKitError.invalidIdentifier(
                "\(entityName)/\(text)", reason: "a primary key is a 64-bit integer, such as 42 or \"p42\"")
        }
        return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .row(key))
    }
}
