import Foundation

extension ResultsObserver where SectionTitle == Never {
    /// An observer of flat results: the models `fetchDescriptor` describes in `modelContext`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, sectionBy: nil, sectionSort: nil, sectionTitle: nil, modelContext: modelContext,
            isolation: isolation)
    }

    /// An observer of flat results in a new context of `modelContainer`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(fetchDescriptor: fetchDescriptor, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// An observer of the models matching `filterBy`, ordered by `sortBy`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContext: ModelContext,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), modelContext: modelContext,
            isolation: isolation)
    }

    /// An observer of the models matching `filterBy`, ordered by `sortBy`, in a new context of
    /// `modelContainer`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, modelContainer: ModelContainer,
        isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(filterBy: filterBy, sortBy: sortBy, modelContext: ModelContext(modelContainer), isolation: isolation)
    }
}

extension ResultsObserver where SectionTitle == String {
    /// An observer of results in sections titled by `sectionBy`, which becomes the first sort
    /// descriptor.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, sectionBy: sectionBy, sectionSort: SortDescriptor(sendable(sectionBy)),
            sectionTitle: { $0[keyPath: sectionBy] }, modelContext: modelContext, isolation: isolation)
    }

    /// An observer of results in sections titled by the optional `sectionBy`: results whose value
    /// is nil are in the section titled `""`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            descriptor: fetchDescriptor, sectionBy: sectionBy, sectionSort: SortDescriptor(sendable(sectionBy)),
            sectionTitle: { $0[keyPath: sectionBy] ?? "" }, modelContext: modelContext, isolation: isolation)
    }

    /// An observer of results in sections titled by `sectionBy`, in a new context of
    /// `modelContainer`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// An observer of results in sections titled by the optional `sectionBy`, in a new context of
    /// `modelContainer`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        fetchDescriptor: FetchDescriptor<Element> = FetchDescriptor<Element>(), sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: fetchDescriptor, sectionBy: sectionBy, modelContext: ModelContext(modelContainer), isolation: isolation)
    }

    /// An observer of the models matching `filterBy`, in sections titled by `sectionBy`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
            modelContext: modelContext, isolation: isolation)
    }

    /// An observer of the models matching `filterBy`, in sections titled by the optional
    /// `sectionBy`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>,
        modelContext: ModelContext, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            fetchDescriptor: FetchDescriptor(predicate: filterBy, sortBy: sortBy ?? []), sectionBy: sectionBy,
            modelContext: modelContext, isolation: isolation)
    }

    /// An observer of the models matching `filterBy`, in sections titled by `sectionBy`, in a new
    /// context of `modelContainer`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            filterBy: filterBy, sortBy: sortBy, sectionBy: sectionBy, modelContext: ModelContext(modelContainer),
            isolation: isolation)
    }

    /// An observer of the models matching `filterBy`, in sections titled by the optional
    /// `sectionBy`, in a new context of `modelContainer`.
    /// - Throws: what the first fetch throws.
    public convenience init(
        filterBy: Predicate<Element>? = nil, sortBy: [SortDescriptor<Element>]? = nil, sectionBy: KeyPath<Element, String?>,
        modelContainer: ModelContainer, isolation: isolated (any Actor)? = #isolation
    ) throws {
        try self.init(
            filterBy: filterBy, sortBy: sortBy, sectionBy: sectionBy, modelContext: ModelContext(modelContainer),
            isolation: isolation)
    }
}

/// `keyPath`, as the sort descriptor wants it. A key path is an immutable value; Apple's
/// initializers take plain key paths, so this marks what is already true.
private func sendable<Root, Value>(_ keyPath: KeyPath<Root, Value>) -> any KeyPath<Root, Value> & Sendable {
    unsafeBitCast(keyPath, to: (any KeyPath<Root, Value> & Sendable).self)
}
