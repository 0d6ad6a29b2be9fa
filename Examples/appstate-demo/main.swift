import AppState
import Foundation

// A small tour of the container: a dependency, in-memory state, and state that survives relaunches
// in UserDefaults and in a JSON file under the user's data directory.

struct Greeter: Sendable {
    let greeting: String
    func greet(_ name: String) -> String { "\(greeting), \(name)!" }
}

struct Launches: Codable, Sendable {
    var count = 0
    var last: Date?
}

extension Application {
    var greeter: Dependency<Greeter> { dependency(Greeter(greeting: "Hello")) }
    var session: State<[String]> { state(initial: []) }
    var launchCount: StoredState<Int> { storedState(initial: 0, id: "launchCount") }
    var launches: FileState<Launches> { fileState(initial: Launches(), filename: "launches.json") }
}

@MainActor
func run() {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.first == "reset" {
        Application.reset(storedState: \.launchCount)
        Application.reset(fileState: \.launches)
        print("reset")
        return
    }
    let name = arguments.first ?? "world"
    print(Application.dependency(\.greeter).greet(name))

    Application.state(\.session).value.append(name)
    Application.storedState(\.launchCount).value += 1
    let launches = Application.fileState(\.launches)
    let previous = launches.value.last
    launches.value.count += 1
    launches.value.last = Date()

    print("launch \(Application.storedState(\.launchCount).value) (UserDefaults)")
    print("launch \(launches.value.count) (\(FileManager.defaultFileStatePath)/launches.json)")
    if let previous {
        print("previous launch \(previous.formatted(date: .abbreviated, time: .standard))")
    }
}

MainActor.assumeIsolated { run() }
