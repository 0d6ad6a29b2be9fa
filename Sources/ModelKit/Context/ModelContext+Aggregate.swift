import Foundation

extension ModelContext {
    /// The sum of a floating-point property over the models `predicate` matches (all of them when
    /// nil), computed by the database rather than by loading the models.
    ///
    /// ```swift
    /// let income = try context.sum(of: \SDRecord.amount, where: #Predicate { $0.type == "income" })
    /// ```
    ///
    /// This is ModelKit's own API; SwiftData has no aggregates. Unsaved changes of the model's type
    /// count, as in a fetch, without loading the other models; a predicate with no SQL translation
    /// is evaluated in Swift over every model. A stored NaN makes the sum NaN, as in Swift.
    /// - Throws: ``SwiftDataError/unsupportedKeyPath`` when `keyPath` is not a persisted
    ///   property, or what a fetch throws.
    public func sum<T: PersistentModel, Value: BinaryFloatingPoint>(
        of keyPath: KeyPath<T, Value>, where predicate: Predicate<T>? = nil
    ) throws -> Double {
        let plan = try plan(for: FetchDescriptor<T>(predicate: predicate))
        guard let column = plan.entity.column(for: keyPath) else {
            throw SwiftDataError.unsupportedKeyPath.carrying(
                .invalidSchema(entity: plan.entity.name, reason: "sum(of:) needs a persisted property"))
        }
        guard plan.filtersInSQL else {
            return try fetch(FetchDescriptor<T>(predicate: predicate)).reduce(0) { $0 + Double($1[keyPath: keyPath]) }
        }
        // With unsaved changes, the stored rows they stand for are left out of the SQL sum, and
        // the changed and inserted models the predicate matches are added from memory.
        let (unsaved, overridden) = hasPendingChanges(of: T.self) ? unsavedOverrides(of: T.self) : ([], [])
        let sql = plan.sum(of: column, leavingOut: overridden)
        let row = try run(on: plan.entity) { try reader(for: plan.entity).rows(sql) }.first
        var total = 0.0
        if case .real(let stored)? = row?.first { total = row?.last == .integer(0) ? stored : .nan }
        for model in unsaved where try predicate?.evaluate(model) ?? true { total += Double(model[keyPath: keyPath]) }
        return total
    }
}
