import Foundation
import ModelKitSync

/// The sync server that `sync` and `watch` talk to: `--server URL`, and `--token T`, sent as
/// `Authorization: Bearer T`.
struct SyncTarget: Equatable {
    let url: URL
    let token: String?

    /// Checks `command`'s `--server` and `--token`.
    /// - Throws: ``TodoCommand/Failure`` for a missing server, one that is not an `http://` or
    ///   `https://` URL with a host, or a token that cannot go in a header.
    init(for command: String, server: String?, token: String?) throws {
        guard let server else {
            throw TodoCommand.Failure(description: "\(command) needs --server URL, the address modelkit-sync-server listens on, such as http://127.0.0.1:8080")
        }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased()), url.host?.isEmpty == false else {
            throw TodoCommand.Failure(description: "--server '\(server)' is not a server's address: give one such as http://127.0.0.1:8080")
        }
        if let token, token.isEmpty || token.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true }) {
            throw TodoCommand.Failure(description: "--token takes the server's token, without spaces or control characters")
        }
        self.url = url
        self.token = token
    }

    /// The HTTP transport to the server, carrying the token.
    var transport: HTTPSyncTransport {
        HTTPSyncTransport(url: url, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    /// One line saying why syncing with the server failed, and what to do.
    func explain(_ error: any Error) -> String {
        let line: String
        switch error as? SyncError {
        case let error? where error.code == .transportFailed:
            line = "no sync server answers at \(url); is modelkit-sync-server running there? (\(error.message))"
        case let error? where error.code == .unauthorized:
            line = "the server at \(url) refused \(token == nil ? "a sync without --token" : "the token"): \(error.message)"
        case let error? where error.code == .schemaMismatch:
            line = "the server at \(url) serves other models than the to-do list's: \(error.message)"
        case let error?:
            line = "syncing with \(url) failed (\(error.code)): \(error.message)"
        case nil:
            line = "syncing with \(url) failed: \(error)"
        }
        return line.split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
