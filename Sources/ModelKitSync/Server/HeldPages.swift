import Synchronization

/// The pages of held pulls, read once a commit. A commit wakes every device waiting at the end
/// of the history, and all of them then ask for the changes after the same cursor: read once,
/// that page serves each device that made none of them (the others read their own, without
/// their pushes). With 1,000 devices waiting, a commit costs one read of its changes instead of
/// 1,000; the pages are forgotten at the next commit.
final class HeldPages: Sendable {
    /// Pulls that see the same page: the same cursor and page size, from the same schema.
    struct Key: Hashable {
        let schema: String
        let cursor: String?
        let limit: Int
    }

    /// A page as a device that made none of its changes sees it, and the changes' authors.
    struct Page: Sendable {
        let response: SyncPullResponse
        let authors: Set<String>
    }

    private struct State {
        /// The commit count the pages were read after.
        var generation: UInt64 = 0
        var pages: [Key: Task<Page, any Error>] = [:]
    }

    private let state = Mutex(State())

    /// The page for `key`, read by `read` unless a pull read after the same commit count did.
    /// A read that fails is forgotten, so that a retry reads again.
    func page(_ key: Key, generation: UInt64, read: @escaping @Sendable () async throws -> Page) async throws -> Page {
        let reading: Task<Page, any Error>? = state.withLock { state in
            if generation > state.generation { state = State(generation: generation) }
            guard generation == state.generation else { return nil }
            if let reading = state.pages[key] { return reading }
            let reading = Task { try await read() }
            state.pages[key] = reading
            return reading
        }
        // A pull that read the count before a newer commit reads alone.
        guard let reading else { return try await read() }
        do {
            return try await reading.value
        } catch {
            state.withLock { state in
                if state.generation == generation, state.pages[key] == reading { state.pages[key] = nil }
            }
            throw error
        }
    }
}
