// `todo`: the ModelState guide's view model as a command-line tool.
//
//     todo [--store PATH] add <title> | list | toggle <title> | remove <title> | clear
//
// The list persists in `<data dir>/todo/default.store` unless `--store` names another file.

import AppState
import Foundation
import SwiftData
import TodoList

@MainActor
func main() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.contains("--help") || arguments.contains("-h") {
        print(TodoCommand.usage)
        return 0
    }
    let command: TodoCommand
    do {
        command = try TodoCommand(arguments: Array(arguments))
    } catch {
        printError("todo: \(error)\n\n\(TodoCommand.usage)")
        return 2
    }
    do {
        for line in try command.run() { print(line) }
        return 0
    } catch {
        printError("todo: \(error)")
        return 1
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

exit(MainActor.assumeIsolated { main() })
