// modelkit-crash-writer STORE [SAVES]: saves numbered models to STORE, one save at a time,
// printing "saved N" after each save returns; forever, or SAVES times. Its context's author is
// "crash-writer". The crash-durability test kills it at random; history tests let it finish.

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

let arguments = CommandLine.arguments
guard arguments.count == 2 || (arguments.count == 3 && Int(arguments[2]) != nil) else {
    FileHandle.standardError.write(Data("usage: modelkit-crash-writer STORE [SAVES]\n".utf8))
    exit(2)
}
let saves = arguments.count == 3 ? Int(arguments[2])! : Int.max
do {
    let container = try ModelContainer(
        for: Entry.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: CommandLine.arguments[1])))
    let context = ModelContext(container)
    context.author = "crash-writer"
    var descriptor = FetchDescriptor<Entry>(sortBy: [SortDescriptor(\.number, order: .reverse)])
    descriptor.fetchLimit = 1
    var number = (try context.fetch(descriptor).first?.number ?? 0) + 1
    for _ in 0..<saves {
        // Several rows per save, so a kill can land in the middle of one.
        for part in 0..<20 { context.insert(Entry(number: number, payload: String(repeating: "\(part)", count: 200))) }
        try context.save()
        FileHandle.standardOutput.write(Data("saved \(number)\n".utf8))  // unbuffered: printed means saved
        number += 1
    }
    exit(0)
} catch {
    FileHandle.standardError.write(Data("modelkit-crash-writer: \(error)\n".utf8))
    exit(1)
}
