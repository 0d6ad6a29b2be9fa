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
    /// count, as in a fetch, and a predicate with no SQL translation is evaluated in Swift. A stored
    /// NaN makes the sum NaN, as in Swift.
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
        guard plan.filtersInSQL, !hasPendingChanges(of: T.self) else {
            return try fetch(FetchDescriptor<T>(predicate: predicate)).reduce(0) { $0 + Double($1[keyPath: keyPath]) }
        }
        let sql = plan.sum(of: column)
        let row = try run(on: plan.entity) { try connection(for: plan.entity).statement(sql.text).rows(sql.bindings) }.first
        guard case .real(let total)? = row?.first else { return 0 }
        return row?.last == .integer(0) ? total : .nan
    }
}
