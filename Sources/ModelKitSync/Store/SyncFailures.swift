import ModelKit

enum SyncFailures {
    /// Whether `error` is a write that lost to a concurrent one: a unique constraint (another
    /// instance recorded the same push or identifier first) or a retryable transaction.
    static func isConcurrentWrite(_ error: any Error) -> Bool {
        if let failure = error as? any DatabaseFailure { return failure.isUniqueViolation || failure.isTransactionRetryable }
        if case .database(let failure)? = error as? ModelKitError { return failure.isUniqueViolation || failure.isTransactionRetryable }
        return false
    }
}
