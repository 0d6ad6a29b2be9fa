import ModelKit

enum SyncFailures {
    /// Whether `error` is a write that lost to a concurrent one: a unique constraint (another
    /// instance recorded the same push or identifier first), a retryable transaction, or a row
    /// the save changes that another push deleted since it was read.
    static func isConcurrentWrite(_ error: any Error) -> Bool {
        if case .saveConflict? = error as? ModelKitError { return true }
        guard let failure = databaseError(error) else { return false }
        return failure.code == .uniqueViolation || failure.code == .transactionConflict
    }

    static func isUniqueViolation(_ error: any Error) -> Bool {
        databaseError(error)?.code == .uniqueViolation
    }

    /// Whether `error` says a value cannot be stored: too large, of another type than its
    /// property's, or one the database cannot hold.
    static func isInvalidValue(_ error: any Error) -> Bool {
        if let failure = databaseError(error) { return failure.code == .valueTooLarge || failure.code == .unsupportedValue }
        if case .storedValueMismatch? = error as? ModelKitError { return true }
        return false
    }

    /// Whether applying the same writes again would fail the same way: not a sync error of the
    /// request's own, nor a database that is unreachable, busy or lost the connection.
    static func isPermanent(_ error: any Error) -> Bool {
        if error is SyncError { return false }
        guard let failure = databaseError(error) else { return true }
        return ![.connectionLost, .cannotConnect, .busy, .transactionConflict].contains(failure.code)
    }

    private static func databaseError(_ error: any Error) -> DatabaseError? {
        if let failure = error as? any DatabaseFailure { return failure.databaseError }
        if case .database(let failure)? = error as? ModelKitError { return failure }
        return nil
    }
}
