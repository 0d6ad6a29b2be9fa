import AppState

extension Application {
    /// The records database the app uses: the SwiftData service over the default store. Tests and
    /// previews replace it with `Application.override(\.database, with: MockDatabaseService())`.
    public var database: Dependency<any DatabaseServiceProtocol> {
        dependency(makeDatabaseService())
    }
}

private func makeDatabaseService() -> any DatabaseServiceProtocol {
    do {
        return try SDDatabaseService()
    } catch {
        fatalError("Failed to open the records store: \(error)")
    }
}
