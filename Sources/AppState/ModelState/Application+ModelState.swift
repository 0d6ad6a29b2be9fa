#if canImport(SwiftData)
import SwiftData

extension Application {
    /// SwiftData models behind the container: a live fetch, and mutators that save.
    ///
    /// ```swift
    /// extension Application {
    ///     var items: ModelState<Item> {
    ///         modelState(container: \.modelContainer, fetchDescriptor: FetchDescriptor(sortBy: [SortDescriptor(\.title)]), id: "items")
    ///     }
    /// }
    /// let state = Application.modelState(\.items)
    /// state.insert(Item(title: "New"))   // inserts and saves
    /// ```
    ///
    /// Everything goes through the container's `mainContext`, so use it on the main actor.
    /// Nothing is cached: ``models`` fetches on every read, and the context stays the source of
    /// truth. Reading ``models`` inside `withObservationTracking` (or a SwiftUI body) is tracked:
    /// any save through the container that touches this model type fires the change.
    ///
    /// The mutators log and swallow errors, at error level with the caller's location, and undo
    /// a change whose save failed, so the context is as it was before the call and the next
    /// mutation works. Use ``strict`` to handle errors yourself: its mutators throw and leave the
    /// change pending, as the context's own methods do.
    public struct ModelState<Model: PersistentModel> {
        /// The emoji for model state in log messages.
        public static var emoji: Character { "🗃️" }

        let app: Application
        let container: KeyPath<Application, Dependency<ModelContainer>>
        let fetchDescriptor: () -> FetchDescriptor<Model>
        /// Where the state is registered.
        public let scope: Scope

        /// The context every read and write goes through: the container's `mainContext`.
        @MainActor public var context: ModelContext { app[keyPath: container].value.mainContext }

        /// The models the fetch descriptor describes, fetched now. A failed fetch is logged and
        /// reads as empty; use ``Strict/fetch()`` to see the error.
        @MainActor public var models: [Model] { models() }

        /// ``models``, with the caller's location for the log if the fetch fails.
        @MainActor public func models(fileID: String = #fileID, line: Int = #line) -> [Model] {
            lenient("fetch", fileID: fileID, line: line) { try strict.fetch() } ?? []
        }

        /// The throwing twins of the mutators, backed by the same context.
        public var strict: Strict { Strict(state: self) }

        /// Inserts a model and saves. If the save fails, the insert is undone.
        @MainActor public func insert(_ model: Model, fileID: String = #fileID, line: Int = #line) {
            undoingOnFailure("insert", fileID: fileID, line: line) { context in context.insert(model) }
        }

        /// Deletes a model and saves. If the save fails, the delete is undone.
        @MainActor public func delete(_ model: Model, fileID: String = #fileID, line: Int = #line) {
            undoingOnFailure("delete", fileID: fileID, line: line) { context in context.delete(model) }
        }

        /// Saves the context's pending changes. If the save fails, they stay pending.
        @MainActor public func save(fileID: String = #fileID, line: Int = #line) {
            undoingOnFailure("save", fileID: fileID, line: line) { _ in }
        }

        /// Deletes exactly the models ``models`` returns, honouring the descriptor's predicate,
        /// limit and offset, and saves. If the save fails, the deletes are undone.
        @MainActor public func deleteAll(fileID: String = #fileID, line: Int = #line) {
            undoingOnFailure("deleteAll", fileID: fileID, line: line) { try deleteModels(in: $0) }
        }

        /// Deletes exactly the models the fetch descriptor describes, in `context`, unsaved.
        @MainActor func deleteModels(in context: ModelContext) throws {
            for model in try context.fetch(fetchDescriptor()) { context.delete(model) }
        }

        /// Runs a mutation in the context's `transaction`, which saves once at its end and, if the
        /// mutation or the save throws, undoes it in the context; logs the error.
        @MainActor
        private func undoingOnFailure(_ operation: String, fileID: String, line: Int, _ mutation: (ModelContext) throws -> Void) {
            let context = context
            lenient(operation, fileID: fileID, line: line) { try context.transaction { try mutation(context) } }
        }

        @MainActor
        private func lenient<R>(_ operation: String, fileID: String, line: Int, _ body: () throws -> R) -> R? {
            do {
                return try body()
            } catch {
                app.logger.value.error("ModelState \(scope.key) \(operation) failed: \(error)", fileID: fileID, line: line)
                return nil
            }
        }

        /// The container's change signal for this model type, registering the read with Observation.
        @MainActor func trackChanges() {
            let container = app[keyPath: container].value
            let key = "ModelState/\(ObjectIdentifier(container))/\(Model.self)"
            let slot = app.cache.slot(key)
            var signal = slot.value(key: key) { ModelChangeSignal(container: container, model: Model.self) }
            if !signal.observes(container) {
                // A released container's address was reused: listen to the new one.
                signal = ModelChangeSignal(container: container, model: Model.self)
                slot.set(signal)
            }
            signal.access()
            app.anchor.access()
        }

        /// The throwing versions of ``ModelState``'s mutators, on the same context.
        ///
        /// ```swift
        /// do {
        ///     try $items.strict.insert(item)
        /// } catch {
        ///     // present the error, roll back, retry…
        /// }
        /// ```
        public struct Strict {
            let state: ModelState

            /// The models the fetch descriptor describes.
            /// - Throws: what the context's `fetch` throws.
            @MainActor public func fetch() throws -> [Model] {
                state.trackChanges()
                return try state.context.fetch(state.fetchDescriptor())
            }

            /// Inserts a model and saves.
            /// - Throws: what the context's `save` throws; the insert stays pending.
            @MainActor public func insert(_ model: Model) throws {
                state.context.insert(model)
                try state.context.save()
            }

            /// Deletes a model and saves.
            /// - Throws: what the context's `save` throws; the delete stays pending.
            @MainActor public func delete(_ model: Model) throws {
                state.context.delete(model)
                try state.context.save()
            }

            /// Saves the context's pending changes.
            /// - Throws: what the context's `save` throws.
            @MainActor public func save() throws {
                try state.context.save()
            }

            /// Deletes exactly the models ``ModelState/models`` returns, and saves.
            /// - Throws: what the fetch or the save throws.
            @MainActor public func deleteAll() throws {
                try state.deleteModels(in: state.context)
                try state.context.save()
            }
        }
    }

    /// Registers a model state over every model of its type.
    public func modelState<Model: PersistentModel>(
        container: KeyPath<Application, Dependency<ModelContainer>>,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> ModelState<Model> {
        ModelState(
            app: self, container: container, fetchDescriptor: { FetchDescriptor<Model>() },
            scope: .codeLocation(fileID: fileID, function: function, line: line, column: column))
    }

    /// Registers a model state over every model of its type, under `feature/id`.
    public func modelState<Model: PersistentModel>(
        container: KeyPath<Application, Dependency<ModelContainer>>,
        feature: String = "App",
        id: String
    ) -> ModelState<Model> {
        ModelState(
            app: self, container: container, fetchDescriptor: { FetchDescriptor<Model>() },
            scope: Scope(name: feature, id: id))
    }

    /// Registers a model state over the models `fetchDescriptor` describes.
    public func modelState<Model: PersistentModel>(
        container: KeyPath<Application, Dependency<ModelContainer>>,
        fetchDescriptor: @autoclosure @escaping () -> FetchDescriptor<Model>,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> ModelState<Model> {
        ModelState(
            app: self, container: container, fetchDescriptor: fetchDescriptor,
            scope: .codeLocation(fileID: fileID, function: function, line: line, column: column))
    }

    /// Registers a model state over the models `fetchDescriptor` describes, under `feature/id`.
    public func modelState<Model: PersistentModel>(
        container: KeyPath<Application, Dependency<ModelContainer>>,
        fetchDescriptor: @autoclosure @escaping () -> FetchDescriptor<Model>,
        feature: String = "App",
        id: String
    ) -> ModelState<Model> {
        ModelState(app: self, container: container, fetchDescriptor: fetchDescriptor, scope: Scope(name: feature, id: id))
    }

    /// Returns a model state of the current application.
    @MainActor
    public static func modelState<Model: PersistentModel>(
        _ keyPath: KeyPath<Application, ModelState<Model>>
    ) -> ModelState<Model> {
        current[keyPath: keyPath]
    }
}
#endif
