extension PersistentIdentifier {
    /// The identifier of the model with `primaryKey` of `entityName` in the store
    /// `storeIdentifier`, as in SwiftData: for identifiers kept outside the store (a URL, a
    /// notification) and made again, and for a custom ``DataStore`` giving its models
    /// identifiers.
    ///
    /// The key may be any `Codable` value a store keys its models by: an integer (ModelKit's own
    /// stores' keys are 64-bit integers, also accepted as the text an identifier's `description`
    /// shows, `"42"` or `"p42"`), a `UUID`, a `String`, or another `Codable` value. Identifiers
    /// made of equal keys are equal and hash alike.
    /// - Throws: ``ModelKitError/invalidIdentifier(_:reason:)`` when `primaryKey` is an integer
    ///   beyond 64 bits, or cannot be encoded.
    public static func identifier<T>(for storeIdentifier: String, entityName: String, primaryKey: T) throws -> PersistentIdentifier
    where T: Comparable, T: CustomStringConvertible, T: Decodable, T: Encodable, T: Hashable {
        if let integer = primaryKey as? any BinaryInteger {
            guard let key = Int64(exactly: integer) else {
                throw ModelKitError.invalidIdentifier("\(entityName)/\(primaryKey)", reason: "an integer primary key fits in 64 bits")
            }
            return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .row(key))
        }
        if let text = primaryKey as? String {
            let digits = text.hasPrefix("p") ? text.dropFirst() : Substring(text)
            if !digits.isEmpty, digits.allSatisfy(\.isASCII), let key = Int64(digits) {
                return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .row(key))
            }
        }
        do {
            return PersistentIdentifier(entityName: entityName, storeIdentifier: storeIdentifier, key: .custom(try PrimaryKey(primaryKey)))
        } catch {
            throw ModelKitError.invalidIdentifier("\(entityName)/\(primaryKey)", reason: "the key cannot be encoded: \(error)")
        }
    }
}
