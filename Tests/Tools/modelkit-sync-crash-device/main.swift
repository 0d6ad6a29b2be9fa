// A device for the sync crash test: makes to-do items `item-0` … `item-<count - 1>` (each only if
// the store lacks it), syncing every few items, then syncs until nothing moves and prints
// "done". The test kills it at random points and starts it again.
//
//     modelkit-sync-crash-device <store path> <server url> <count>

import Foundation
import ModelKit
import ModelKitSync

@Model final class TodoItem {
    var title: String
    var isComplete: Bool
    init(title: String, isComplete: Bool = false) {
        self.title = title
        self.isComplete = isComplete
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let url = URL(string: arguments[2]), let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: modelkit-sync-crash-device <store> <url> <count>\n".utf8))
    exit(2)
}

func run() async throws {
    let container = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: URL(fileURLWithPath: arguments[1])))
    let client = try SyncClient(container: container, transport: HTTPSyncTransport(url: url, headers: ["Authorization": "Bearer s3cret"]))
    let context = ModelContext(container)
    for index in 0..<count {
        let title = "item-\(index)"
        if try context.fetchCount(FetchDescriptor<TodoItem>(predicate: #Predicate { $0.title == title })) == 0 {
            context.insert(TodoItem(title: title))
            try context.save()
        }
        if index % 5 == 4 { _ = try? await client.sync() }
    }
    while true {
        do {
            let report = try await client.sync()
            if report.pushed == 0 && report.pulled == 0 { break }
        } catch {
            try await Task.sleep(for: .milliseconds(100))
        }
    }
    print("done")
}

do {
    try await run()
} catch {
    FileHandle.standardError.write(Data("modelkit-sync-crash-device: \(error)\n".utf8))
    exit(1)
}
