// `todo`: the ModelState guide's view model as a command-line tool.
//
//     todo [--store PATH] add <title> | list | toggle <title> | remove <title> | clear
//     todo [--store PATH] sync --server URL [--token T] | watch --server URL [--token T]
//
// The list persists in `<data dir>/todo/default.store` unless `--store` names another file.
// `sync` and `watch` sync it with `modelkit-sync-server`.

import Dispatch
import Foundation
import Synchronization

@MainActor
func main() async -> Int32 {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.contains("--help") || arguments.contains("-h") {
        print(TodoCommand.usage)
        return 0
    }
    let command: TodoCommand
    do {
        command = try TodoCommand(arguments: Array(arguments))
    } catch {
        printError("todo: \(error) (todo --help shows the usage)")
        return 1
    }
    // Ctrl-C ends `watch` cleanly: its run is cancelled, and it returns. Other commands keep the
    // default, which ends them at once (a sync is safe to interrupt: nothing is lost or applied
    // twice). Set up before the run starts: a Ctrl-C right after its first line ended it at once.
    let interruption = Interruption()
    var interrupt: (any DispatchSourceSignal)?
    if case .watch = command.action {
        signal(SIGINT, SIG_IGN)
        interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "todo.interrupt"))
        interrupt?.setEventHandler { @Sendable in interruption.request() }
        interrupt?.resume()
    }
    defer { interrupt?.cancel() }
    let run = Task { try await command.run(TodoCommand.Output(line: printLine, problem: printError)) }
    interruption.attach(run)
    do {
        try await run.value
        return 0
    } catch {
        printError("todo: \(error)")
        return 1
    }
}

/// A Ctrl-C for the run, which may come before the run is known.
final class Interruption: Sendable {
    private let state = Mutex<(run: Task<Void, any Error>?, requested: Bool)>((nil, false))

    func request() {
        state.withLock { state in
            state.requested = true
            state.run?.cancel()
        }
    }

    func attach(_ run: Task<Void, any Error>) {
        state.withLock { state in
            state.run = run
            if state.requested { run.cancel() }
        }
    }
}

/// Writes a line to standard output at once, unbuffered, so that `watch`'s lines show as they come.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}

exit(await main())
