// `records`: the records service layer as a command-line tool.
//
//     records [--store PATH] add <income|expense> <amount> <title> [--date YYYY-MM-DD]
//     records [--store PATH] list [--type income|expense]
//     records [--store PATH] totals
//
// Records persist in `<data dir>/records/default.store` unless `--store` names another file.

import Foundation

@MainActor
func main() -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.contains("--help") || arguments.contains("-h") {
        print(RecordsCommand.usage)
        return 0
    }
    let command: RecordsCommand
    do {
        command = try RecordsCommand(arguments: Array(arguments))
    } catch {
        printError("records: \(error)\n\n\(RecordsCommand.usage)")
        return 2
    }
    do {
        for line in try command.run() { print(line) }
        return 0
    } catch {
        printError("records: \(error)")
        return 1
    }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

exit(MainActor.assumeIsolated { main() })
