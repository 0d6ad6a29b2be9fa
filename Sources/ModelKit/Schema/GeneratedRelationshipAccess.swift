/// The conversions the code ``Model()`` generates for relationship properties uses, one overload
/// per shape a relationship can have (a model, an optional model, an array of models, an
/// optional array of models, as CloudKit asks for) and a fallback for every other type. The
/// compiler picks the overload from the property's declared type, so the generated accessors
/// convert without key paths or dynamic casts. Not for direct use.

/// The models a property's value holds: none for a value that is not a relationship.
@inlinable public func _modelKitRelationshipModels<Value>(_ value: Value) -> [any PersistentModel] { [] }

/// A required to-one holds its target.
@inlinable public func _modelKitRelationshipModels<Target: PersistentModel>(_ value: Target) -> [any PersistentModel] { [value] }

/// An optional to-one holds its target, if any.
@inlinable public func _modelKitRelationshipModels<Target: PersistentModel>(_ value: Target?) -> [any PersistentModel] { value.map { [$0] } ?? [] }

/// A to-many holds its elements.
@inlinable public func _modelKitRelationshipModels<Target: PersistentModel>(_ value: [Target]) -> [any PersistentModel] { value }

/// An optional to-many holds its elements; nil holds none.
@inlinable public func _modelKitRelationshipModels<Target: PersistentModel>(_ value: [Target]?) -> [any PersistentModel] {
    value ?? []
}

/// Whether a property's value holds `model`: never for a value that is not a relationship.
@inlinable public func _modelKitRelationshipHolds<Value>(_ value: Value, _ model: AnyObject) -> Bool { false }

@inlinable public func _modelKitRelationshipHolds<Target: PersistentModel>(_ value: Target, _ model: AnyObject) -> Bool { value === model }

@inlinable public func _modelKitRelationshipHolds<Target: PersistentModel>(_ value: Target?, _ model: AnyObject) -> Bool { value.map { $0 === model } ?? false }

@inlinable public func _modelKitRelationshipHolds<Target: PersistentModel>(_ value: [Target], _ model: AnyObject) -> Bool { value.contains { $0 === model } }

@inlinable public func _modelKitRelationshipHolds<Target: PersistentModel>(_ value: [Target]?, _ model: AnyObject) -> Bool {
    value?.contains { $0 === model } ?? false
}

/// The value of a property of type `type` that holds `models`; nil when there is none to set:
/// the property is not a relationship, or it is a required to-one and `models` is empty.
@inlinable public func _modelKitRelationshipValue<Value>(holding models: [any PersistentModel], as type: Value.Type) -> Value? { nil }

@inlinable public func _modelKitRelationshipValue<Target: PersistentModel>(holding models: [any PersistentModel], as type: Target.Type) -> Target? {
    models.first.map { ($0 as AnyObject) as! Target }
}

@inlinable public func _modelKitRelationshipValue<Target: PersistentModel>(holding models: [any PersistentModel], as type: Target?.Type) -> Target?? {
    .some(models.first.map { ($0 as AnyObject) as! Target })
}

@inlinable public func _modelKitRelationshipValue<Target: PersistentModel>(holding models: [any PersistentModel], as type: [Target].Type) -> [Target]? {
    _modelKitRelationshipArray(models, of: Target.self)
}

@inlinable public func _modelKitRelationshipValue<Target: PersistentModel>(
    holding models: [any PersistentModel], as type: [Target]?.Type
) -> [Target]?? {
    .some(_modelKitRelationshipArray(models, of: Target.self))
}

/// `models` as an array of `Target`. An element of exactly that class is taken as it is, without
/// a dynamic cast (a tenth of the cost of a loaded list's element); a subclass's is cast.
@inlinable public func _modelKitRelationshipArray<Target: PersistentModel>(_ models: [any PersistentModel], of _: Target.Type) -> [Target] {
    guard !models.isEmpty else { return [] }
    return [Target](unsafeUninitializedCapacity: models.count) { elements, count in
        for model in models {
            let object = model as AnyObject
            (elements.baseAddress! + count).initialize(to: type(of: object) == Target.self ? unsafeDowncast(object, to: Target.self) : object as! Target)
            count += 1
        }
    }
}

/// A value that is not a relationship includes nothing.
@inlinable public func _modelKitRelationshipInclude<Value>(_ model: AnyObject, _ isIncluded: Bool, in value: inout Value) -> Bool { false }

/// Makes a required to-one hold `model`; it is never emptied.
@inlinable public func _modelKitRelationshipInclude<Target: PersistentModel>(_ model: AnyObject, _ isIncluded: Bool, in value: inout Target) -> Bool {
    guard isIncluded else { return false }
    value = model as! Target
    return true
}

/// Makes an optional to-one hold `model`, or nothing if it holds `model`; false when nothing
/// changed.
@inlinable public func _modelKitRelationshipInclude<Target: PersistentModel>(_ model: AnyObject, _ isIncluded: Bool, in value: inout Target?) -> Bool {
    if isIncluded {
        value = (model as! Target)
        return true
    }
    guard value === model else { return false }
    value = nil
    return true
}

/// Makes a to-many include `model` (appended: the caller has checked that it is not there) or
/// leave it out; false when nothing changed.
@inlinable public func _modelKitRelationshipInclude<Target: PersistentModel>(_ model: AnyObject, _ isIncluded: Bool, in value: inout [Target]) -> Bool {
    if isIncluded {
        value.append(model as! Target)
        return true
    }
    guard let index = value.firstIndex(where: { $0 === model }) else { return false }
    value.remove(at: index)
    return true
}

/// Makes an optional to-many include `model` or leave it out, as a to-many does; nil counts as
/// empty.
@inlinable public func _modelKitRelationshipInclude<Target: PersistentModel>(
    _ model: AnyObject, _ isIncluded: Bool, in value: inout [Target]?
) -> Bool {
    var list = value ?? []
    guard _modelKitRelationshipInclude(model, isIncluded, in: &list) else { return false }
    value = list
    return true
}

/// `value` with each model once, in order: a to-many holds each model once, as SwiftData's do
/// (`item.tags = [tag, tag]` holds `tag` once).
@inlinable public func _modelKitRelationshipDistinct<Target: PersistentModel>(_ value: [Target]) -> [Target] {
    guard value.count > 1 else { return value }
    var seen = Set<ObjectIdentifier>(minimumCapacity: value.count)
    var distinct = true
    for model in value where !seen.insert(ObjectIdentifier(model)).inserted {
        distinct = false
        break
    }
    if distinct { return value }
    seen.removeAll(keepingCapacity: true)
    return value.filter { seen.insert(ObjectIdentifier($0)).inserted }
}

/// `value` as an initializer stores it: anything but a to-many as it is.
@inlinable public func _modelKitInitialValue<Value>(_ value: Value) -> Value { value }

/// A to-many as an initializer stores it: each model once.
@inlinable public func _modelKitInitialValue<Target: PersistentModel>(_ value: [Target]) -> [Target] {
    _modelKitRelationshipDistinct(value)
}

/// An optional to-many as an initializer stores it: each model once.
@inlinable public func _modelKitInitialValue<Target: PersistentModel>(_ value: [Target]?) -> [Target]? {
    guard let value else { return nil }
    return _modelKitRelationshipDistinct(value)
}

extension ModelStorage {
    /// A value as the setter of a property that may be a relationship stores it: a
    /// to-many, optional or not, holds each model once; anything else as it is. The engine's own
    /// writes (loading, restoring, merging) hold each model once already and skip the check, which
    /// costs a hash of every element.
    @inlinable public func _distinct<Value>(_ value: Value) -> Value { value }

    @inlinable public func _distinct<Target: PersistentModel>(_ value: [Target]) -> [Target] {
        isLoading ? value : _modelKitRelationshipDistinct(value)
    }

    @inlinable public func _distinct<Target: PersistentModel>(_ value: [Target]?) -> [Target]? {
        guard let value, !isLoading else { return value }
        return _modelKitRelationshipDistinct(value)
    }
}
