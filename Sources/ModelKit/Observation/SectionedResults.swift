/// Results grouped into sections by a key path's value: a random-access collection of
/// ``ResultsSection``s, in the order each title first appears in the sorted results.
///
/// ```swift
/// let observer = try ResultsObserver<Trip, String>(sectionBy: \.destination, modelContext: context)
/// for section in observer.sections ?? SectionedResults() {
///     print(section.title, section.count)
/// }
/// let paris = observer.sections?[sectionTitle: "Paris"]
/// ```
public struct SectionedResults<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Equatable {
    private let sections: [ResultsSection<Element, SectionTitle>]
    private let positions: [SectionTitle: Int]

    /// No sections.
    public init() {
        sections = []
        positions = [:]
    }

    /// Groups `elements`, already sorted by their titles, by `title`. Equal titles are
    /// contiguous in sorted results; should one come back later, its elements join its section.
    init(_ elements: [Element], title: (Element) -> SectionTitle) {
        var grouped: [(title: SectionTitle, elements: [Element])] = []
        var positions: [SectionTitle: Int] = [:]
        for element in elements {
            let title = title(element)
            if let last = grouped.indices.last, grouped[last].title == title {
                grouped[last].elements.append(element)
            } else if let position = positions[title] {
                grouped[position].elements.append(element)
            } else {
                positions[title] = grouped.count
                grouped.append((title, [element]))
            }
        }
        sections = grouped.map { ResultsSection(title: $0.title, elements: $0.elements) }
        self.positions = positions
    }

    public var startIndex: Int { sections.startIndex }
    public var endIndex: Int { sections.endIndex }
    public subscript(position: Int) -> ResultsSection<Element, SectionTitle> { sections[position] }

    /// The section titled `title`, or `nil` if no result has that title.
    ///
    /// - Complexity: O(1)
    public subscript(sectionTitle title: SectionTitle) -> ResultsSection<Element, SectionTitle>? {
        positions[title].map { sections[$0] }
    }

    /// The position of the section titled `title`, or `nil` if there is none.
    ///
    /// - Complexity: O(1)
    public func index(ofSectionTitled title: SectionTitle) -> Int? {
        positions[title]
    }

    /// Whether a section is titled `title`.
    ///
    /// - Complexity: O(1)
    public func contains(sectionTitle title: SectionTitle) -> Bool {
        positions[title] != nil
    }

    /// Sectioned results are equal when they have the same sections, in the same order.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.sections == rhs.sections }

    /// The section titles, in order.
    public var sectionTitles: [SectionTitle] { sections.map(\.title) }
}

/// One section of ``SectionedResults``: the results sharing one value of the section key path,
/// in the results' order.
public struct ResultsSection<Element: PersistentModel, SectionTitle: Hashable>: RandomAccessCollection, Identifiable, Equatable {
    /// The value every element of the section has at the section key path.
    public let title: SectionTitle
    private let elements: [Element]

    init(title: SectionTitle, elements: [Element]) {
        self.title = title
        self.elements = elements
    }

    /// Sections are equal when they have the same title and the same models, in order.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.title == rhs.title && lhs.elements == rhs.elements }

    /// The section's title, which identifies it among the sections.
    public var id: SectionTitle { title }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> Element { elements[position] }
}
