/// The results of ``ModelContext/fetch(_:batchSize:)`` and
/// ``ModelContext/fetchIdentifiers(_:batchSize:)``: a random-access collection whose models load
/// a batch at a time as they are read, so memory follows the batch rather than the results.
///
/// ```swift
/// for item in try context.fetch(FetchDescriptor<TodoItem>(), batchSize: 500) { … }
/// ```
///
/// The collection keeps the identifiers of the results from the fetch, in its order, and one
/// batch of models. A row deleted after the fetch reads as ``ModelContext/model(for:)`` reads it,
/// an unsaved stand-in; a model type that can have no stand-in (a required to-one, or a required
/// `Codable` value without a default) traps there instead: fetch again after deleting.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    private let batches: ResultBatches<Element>

    init(_ batches: ResultBatches<Element>) {
        self.batches = batches
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { batches.count }

    public subscript(position: Int) -> Element {
        batches.element(at: position)
    }
}

/// The elements of a ``FetchResultsCollection``: all of them, or one batch at a time, loaded by
/// range of positions.
final class ResultBatches<Element> {
    let count: Int
    private let batchSize: Int
    private let load: (Range<Int>) -> [Element]
    private var batch: (range: Range<Int>, elements: [Element])?

    init(count: Int, batchSize: Int, load: @escaping (Range<Int>) -> [Element]) {
        self.count = count
        self.batchSize = batchSize
        self.load = load
    }

    /// Elements already in memory, as one batch.
    convenience init(_ elements: [Element]) {
        self.init(count: elements.count, batchSize: max(elements.count, 1)) { Array(elements[$0]) }
    }

    func element(at position: Int) -> Element {
        precondition((0..<count).contains(position), "index \(position) is out of the results' range 0..<\(count)")
        if let batch, batch.range.contains(position) { return batch.elements[position - batch.range.lowerBound] }
        let start = position / batchSize * batchSize
        let range = start..<min(start + batchSize, count)
        batch = nil  // the previous batch's models go before the next one loads
        let elements = load(range)
        batch = (range, elements)
        return elements[position - start]
    }
}
