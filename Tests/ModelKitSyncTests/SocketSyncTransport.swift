import Foundation
@testable import ModelKitSync

/// The sync wire over plain sockets, a connection per request (``RawConnection``): for tests
/// that cut connections. `HTTPSyncTransport` cannot run them on Linux, where URLSession stops
/// the process ("Transfer completed, but there's no response", swift-corelibs-foundation
/// #5285) when a connection is lost right after its request went out. An answer whose body is
/// shorter than its `Content-Length` is a failed request, as any HTTP client sees it.
struct SocketSyncTransport: SyncTransport {
    let port: UInt16

    var supportsWaiting: Bool { true }

    func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try await send(request, to: "push")
    }

    func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try await send(request, to: "pull")
    }

    private func send<Request: Encodable, Response: Decodable>(_ body: Request, to operation: String) async throws -> Response {
        let json = String(decoding: try SyncJSON.encoder.encode(body), as: UTF8.self)
        let answer = try await RawConnection(port: port).exchange(
            "POST /sync/\(operation) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n\(json)")
        guard let end = answer.range(of: "\r\n\r\n"), let status = Int(answer.dropFirst("HTTP/1.1 ".count).prefix(3)) else {
            throw SyncError(.transportFailed, "the \(operation) answer was cut before its head ended")
        }
        let head = answer[..<end.lowerBound].lowercased()
        let body = Data(answer[end.upperBound...].utf8)
        guard let length = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }).flatMap({ Int($0.dropFirst(15).trimmingCharacters(in: .whitespaces)) }),
            length == body.count
        else { throw SyncError(.transportFailed, "the \(operation) answer was cut inside its body") }
        guard status == 200 else {
            let failure = try SyncJSON.decoder.decode(SyncHTTPFailure.self, from: body)
            throw SyncError(failure.code, failure.message)
        }
        return try SyncJSON.decoder.decode(Response.self, from: body)
    }
}
