import Foundation

extension ResultsObserver {
    /// The element at `indexPath` of the sectioned results, where `indexPath[0]` is the section
    /// and `indexPath[1]` the item in it, as in SwiftData; nil when the observer has no sections
    /// or the path is out of bounds.
    public final func element(at indexPath: IndexPath) -> Element? {
        guard indexPath.count == 2, let sections, sections.indices.contains(indexPath[0]) else { return nil }
        let section = sections[indexPath[0]]
        return section.indices.contains(indexPath[1]) ? section[indexPath[1]] : nil
    }

    /// The index path (section, then item) of `element` in the sectioned results; nil when the
    /// observer has no sections or the results do not hold it.
    ///
    /// - Complexity: O(*n*) in the size of the element's section, found by its title in O(1).
    public final func indexPath(for element: Element) -> IndexPath? {
        guard let sections, let sectionTitle,
            let sectionIndex = sections.index(ofSectionTitled: sectionTitle(element)),
            let item = sections[sectionIndex].firstIndex(where: { $0 === element })
        else { return nil }
        return IndexPath(indexes: [sectionIndex, item])
    }
}
