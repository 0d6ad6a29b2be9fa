// `modelkit-sync-server`: a sync server for demos and tests, serving the to-do list's models
// (`TodoItem`, as `todo` stores them) over HTTP.
//
//     modelkit-sync-server (--store PATH | --postgres URL) [--host 127.0.0.1] [--port 8080] [--token SECRET]
//
// Devices sync with `HTTPSyncTransport(url: URL(string: "http://host:port/sync")!)`. With
// `--token`, requests need `Authorization: Bearer SECRET`. It prints the port it listens on.

import Foundation
import ModelKit
import ModelKitPostgres
import ModelKitSync

/// The to-do list's model, as `todo` declares it (the same schema: the same entity and properties).
@Model final class TodoItem {
    var title: String
    var isComplete: Bool
    init(title: String, isComplete: Bool = false) {
        self.title = title
        self.isComplete = isComplete
    }
}

let usage = "usage: modelkit-sync-server (--store PATH | --postgres URL) [--host ADDRESS] [--port PORT] [--token SECRET]"

func value(of option: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("modelkit-sync-server: \(message)\n".utf8))
    exit(2)
}

let configuration: any DataStoreConfiguration
if let path = value(of: "--store") {
    configuration = ModelConfiguration(url: URL(fileURLWithPath: path))
} else if let url = value(of: "--postgres").flatMap(URL.init(string:)) {
    configuration = PostgresConfiguration(url: url)
} else {
    fail("give the server's store\n\(usage)")
}
guard let port = UInt16(value(of: "--port") ?? "8080") else { fail("--port takes a number from 0 to 65535") }
let token = value(of: "--token")

do {
    let container = try ModelContainer(for: Schema([TodoItem.self]), configurations: [configuration])
    let server = try SyncServer(container: container) { request in
        guard let token else { return }
        guard request.credentials["authorization"] == "Bearer \(token)" else {
            throw SyncError(.unauthorized, "send Authorization: Bearer <token>, the token the server was started with")
        }
    }
    let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: server), host: value(of: "--host") ?? "127.0.0.1", port: port)
    FileHandle.standardOutput.write(Data("modelkit-sync-server listening on port \(http.port)\n".utf8))
    http.run()
} catch {
    fail("\(error)")
}
