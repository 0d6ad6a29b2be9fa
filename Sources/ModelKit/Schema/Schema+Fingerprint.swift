extension Schema {
    /// A digest of everything migration looks at: entities, properties with their storage kinds
    /// and optionality, original names, relationships, unique constraints and indexes. A store
    /// whose recorded fingerprint matches needs no migration, so opening it writes nothing.
    var fingerprint: String {
        var text = "modelkit-schema-1"
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            text += "|\(entity.name)"
            if let superentity = entity.superentity { text += ":\(superentity.name)" }
            for property in entity.metadata {
                let codec = property.codec
                text += ";\(property.name):\(codec?.storageKind ?? "?"):\(codec?.isOptional == true ? "?" : "")"
                if let original = property.originalName { text += "<\(original)" }
                if let relationship = entity.relationshipsByColumn[entity.column(for: property.keyPath) ?? -1] {
                    text += "->\(relationship.target.name).\(relationship.inverse?.name ?? "")"
                }
            }
            text += ";unique=" + entity.uniqueConstraints.map { $0.map(\.name).joined(separator: ",") }.joined(separator: "/")
            text += ";index=" + entity.indexes.map { $0.map(\.name).joined(separator: ",") }.joined(separator: "/")
        }
        // FNV-1a, 64 bits: stable across runs and platforms, unlike `hashValue`.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}
