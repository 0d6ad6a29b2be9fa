import AppState
import Foundation
import SwiftData
import TodoList

/// One invocation of the `todo` tool: parsed from the arguments, then run on ``TodoListViewModel``.
struct TodoCommand: Equatable {
    enum Action: Equatable {
        case add(String)
        case list
        case toggle(String)
        case remove(String)
        case clear
    }

    /// What went wrong, in words for the terminal.
    struct Failure: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    static let usage = """
        usage: todo [--store PATH] <command>
               todo --help | -h
          add <title>      add an item
          list             print the items, sorted by title: [ ] open, [x] done
          toggle <title>   mark an item done, or open again
          remove <title>   delete an item
          clear            delete every item
        """

    let action: Action
    /// The store file; nil for the default, `<data dir>/todo/default.store`.
    let store: URL?

    /// Parses `arguments` (without the program name).
    /// - Throws: ``Failure`` for an unknown command or a missing or extra argument.
    init(arguments: [String]) throws {
        var arguments = arguments
        var store: URL?
        if let index = arguments.firstIndex(of: "--store") {
            guard index + 1 < arguments.count else { throw Failure(description: "--store needs a path") }
            store = URL(fileURLWithPath: arguments[index + 1])
            arguments.removeSubrange(index...index + 1)
        }
        self.store = store
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
        case "add": action = .add(try title())
        case "list": try noArguments(); action = .list
        case "toggle": action = .toggle(try title())
        case "remove": action = .remove(try title())
        case "clear": try noArguments(); action = .clear
        default: throw Failure(description: "unknown command '\(command)'")
        }
    }

    /// The store's location: `--store`, or the default container's.
    var storeURL: URL { store ?? ModelConfiguration().url }

    /// Runs the command and returns the lines to print.
    ///
    /// Only `add` creates a store; the other commands treat a missing store as an empty list, so a
    /// mistake writes nothing. An unknown title is checked before anything is written. Errors that
    /// the view model's lenient mutators log are collected and thrown.
    /// - Throws: ``Failure`` for an unknown title or a failed write.
    @MainActor
    func run() throws -> [String] {
        let createsStore = if case .add = action { true } else { false }
        if !createsStore, !FileManager.default.fileExists(atPath: storeURL.path) {
            return try runOnEmptyList()
        }
        let container: ModelContainer
        do {
            container = try ModelContainer(for: TodoItem.self, configurations: ModelConfiguration(url: storeURL))
        } catch {
            throw Failure(description: "\(error)")
        }
        let recorder = ApplicationLogger.Recorder()
        return try Application.withIsolatedScope {
            Application.promote(\.modelContainer, with: container)
            let token = Application.override(\.logger, with: recorder.logger)
            defer { withExtendedLifetime(token) {} }
            let lines = try perform(on: TodoListViewModel())
            if let error = recorder.messages(at: .error).first { throw Failure(description: error) }
            return lines
        }
    }

    @MainActor
    private func perform(on viewModel: TodoListViewModel) throws -> [String] {
        switch action {
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

    private func runOnEmptyList() throws -> [String] {
        switch action {
        case .toggle(let title), .remove(let title): throw Failure(description: "no item titled '\(title)'")
        case .add, .list, .clear: return []
        }
    }
}
