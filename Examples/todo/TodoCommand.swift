import AppState
import Foundation
import SwiftData
import TodoList

/// One invocation of the `todo` tool: parsed from the arguments, then run on ``TodoListViewModel``.
struct TodoCommand: Equatable {
    enum Action: Equatable {
        /// A look at, or a change to, the list in the store.
        case local(Local)
        /// One push and pull with a sync server.
        case sync(SyncTarget)
        /// Live sync with a sync server, printing each change, until cancelled.
        case watch(SyncTarget)
    }

    enum Local: Equatable {
        case add(String)
        case list
        case toggle(String)
        case remove(String)
        case clear
    }

    /// What went wrong, in one line for the terminal.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// Where a command's lines go: what it reports, and the problems it carries on after.
    struct Output {
        let line: @MainActor (String) -> Void
        let problem: @MainActor (String) -> Void
    }

    static let usage = """
        usage: todo [--store PATH] <command>
               todo --help | -h
          add <title>      add an item
          list             print the items, sorted by title: [ ] open, [x] done
          toggle <title>   mark an item done, or open again
          remove <title>   delete an item
          clear            delete every item
          sync --server URL [--token T]
                           send this list's changes to a sync server (modelkit-sync-server)
                           and bring back the other lists'; T goes as Authorization: Bearer T
          watch --server URL [--token T]
                           sync live, printing each change as it arrives, until Ctrl-C:
                           + added, x done, o open again, ~ renamed, - removed
        """

    let action: Action
    /// The store file; nil for the default, `<data dir>/todo/default.store`.
    let store: URL?

    /// Parses `arguments` (without the program name).
    /// - Throws: ``Failure`` for an unknown command, a missing or extra argument, or a server
    ///   option that is missing, malformed, or given to a command that does not sync.
    init(arguments: [String]) throws {
        var arguments = arguments
        store = try Self.take("--store", from: &arguments).map { URL(fileURLWithPath: $0) }
        let server = try Self.take("--server", from: &arguments)
        let token = try Self.take("--token", from: &arguments)
        guard let command = arguments.first else { throw Failure(description: "missing command") }
        let rest = arguments.dropFirst().joined(separator: " ")
        func title() throws -> String {
            guard !rest.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw Failure(description: "\(command) needs a title")
            }
            return rest
        }
        func noArguments() throws {
            guard rest.isEmpty else { throw Failure(description: "\(command) takes no arguments") }
        }
        switch command {
        case "add": action = .local(.add(try title()))
        case "list": try noArguments(); action = .local(.list)
        case "toggle": action = .local(.toggle(try title()))
        case "remove": action = .local(.remove(try title()))
        case "clear": try noArguments(); action = .local(.clear)
        case "sync": try noArguments(); action = .sync(try SyncTarget(for: command, server: server, token: token))
        case "watch": try noArguments(); action = .watch(try SyncTarget(for: command, server: server, token: token))
        default: throw Failure(description: "unknown command '\(command)'")
        }
        if case .local = action, server != nil || token != nil {
            throw Failure(description: "\(server != nil ? "--server" : "--token") goes only with sync and watch")
        }
    }

    /// Removes `option` and its value from `arguments`, returning the value; nil without the option.
    private static func take(_ option: String, from arguments: inout [String]) throws -> String? {
        guard let index = arguments.firstIndex(of: option) else { return nil }
        guard index + 1 < arguments.count else {
            throw Failure(description: "\(option) needs \(option == "--store" ? "a path" : "a value")")
        }
        defer { arguments.removeSubrange(index...index + 1) }
        return arguments[index + 1]
    }

    /// The store's location: `--store`, or the default container's.
    var storeURL: URL { store ?? ModelConfiguration().url }

    /// Runs the command, handing `output` each line as it is ready. `watch` runs until the task
    /// running it is cancelled, then returns.
    ///
    /// Only `add`, `sync` and `watch` create a store; the other commands treat a missing store as
    /// an empty list, so a mistake writes nothing. An unknown title is checked before anything is
    /// written. Errors that the view model's lenient mutators log are collected and thrown.
    /// - Throws: ``Failure`` for an unknown title, a failed write, or a sync the server refused
    ///   or could not take.
    @MainActor
    func run(_ output: Output) async throws {
        switch action {
        case .local(let local):
            for line in try await run(local) { output.line(line) }
        case .sync(let target):
            for line in try await sync(with: target) { output.line(line) }
        case .watch(let target):
            try await watch(target, output)
        }
    }

    @MainActor
    private func run(_ local: Local) async throws -> [String] {
        let createsStore = if case .add = local { true } else { false }
        if !createsStore, !FileManager.default.fileExists(atPath: storeURL.path) {
            return try Self.runOnEmptyList(local)
        }
        return try await withViewModel(on: try openContainer()) { viewModel in try perform(local, on: viewModel) }
    }

    /// The store's container, which creates the file if it is missing.
    func openContainer() throws -> ModelContainer {
        do {
            return try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: storeURL))
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// Runs `body` on a view model over `container`, in an application of its own, throwing the
    /// first error the view model logged.
    @MainActor
    func withViewModel<R>(on container: ModelContainer, _ body: (TodoListViewModel) async throws -> R) async throws -> R {
        let recorder = ApplicationLogger.Recorder()
        return try await Application.withIsolatedScope {
            Application.promote(\.modelContainer, with: container)
            let token = Application.override(\.logger, with: recorder.logger)
            defer { withExtendedLifetime(token) {} }
            let result = try await body(TodoListViewModel())
            if let error = recorder.messages(at: .error).first { throw Failure(description: error) }
            return result
        }
    }

    @MainActor
    private func perform(_ local: Local, on viewModel: TodoListViewModel) throws -> [String] {
        switch local {
        case .add(let title):
            viewModel.add(title: title)
        case .list:
            return viewModel.todoItems.map { "[\($0.isComplete ? "x" : " ")] \($0.title)" }
        case .toggle(let title):
            viewModel.toggle(try item(titled: title, in: viewModel))
        case .remove(let title):
            viewModel.remove(try item(titled: title, in: viewModel))
        case .clear:
            viewModel.clearAll()
        }
        return []
    }

    /// The first item, in title order, with this title.
    @MainActor
    private func item(titled title: String, in viewModel: TodoListViewModel) throws -> TodoItem {
        guard let item = viewModel.todoItems.first(where: { $0.title == title }) else {
            throw Failure(description: "no item titled '\(title)'")
        }
        return item
    }

    private static func runOnEmptyList(_ local: Local) throws -> [String] {
        switch local {
        case .toggle(let title), .remove(let title): throw Failure(description: "no item titled '\(title)'")
        case .add, .list, .clear: return []
        }
    }
}
