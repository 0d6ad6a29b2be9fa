// modelkit-crash-writer STORE: saves numbered models to STORE in a loop, one save at a time,
// printing "saved N" after each save returns. The crash-durability test kills it at random.

import Foundation
import ModelKit

@Model final class Entry {
    var number: Int
    var payload: String
    init(number: Int, payload: String) {
        self.number = number
        self.payload = payload
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: modelkit-crash-writer STORE\n".utf8))
    exit(2)
}
do {
    let container = try ModelContainer(
        for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: CommandLine.arguments[1])))
    let context = ModelContext(container)
    var descriptor = FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.number, order: .reverse)])
    descriptor.fetchLimit = 1
    var number = (try context.fetch(descriptor).first?.number ?? 0) + 1
    while true {
        // Several rows per save, so a kill can land in the middle of one.
        for part in 0..<20 { context.insert(Entry(number: number, payload: String(repeating: "\(part)", count: 200))) }
        try context.save()
        FileHandle.standardOutput.write(Data("saved \(number)\n".utf8))  // unbuffered: printed means saved
        number += 1
    }
} catch {
    FileHandle.standardError.write(Data("modelkit-crash-writer: \(error)\n".utf8))
    exit(1)
}
