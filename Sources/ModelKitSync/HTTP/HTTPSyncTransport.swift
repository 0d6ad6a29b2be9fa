import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reaches a sync server over HTTP: `POST <url>/push` and `POST <url>/pull`, JSON bodies (the
/// messages' `Codable` forms), gzip-compressed both ways past a kilobyte, on `URLSession`. A failed request throws
/// ``SyncError/Code/transportFailed``; the server's refusals come back as the ``SyncError``
/// it sent (status 4xx or 5xx, body `{"code": …, "message": …}`).
///
/// ```swift
/// let transport = HTTPSyncTransport(url: URL(string: "https://example.com/sync")!, headers: ["Authorization": "Bearer …"])
/// let client = try SyncClient(container: container, transport: transport)
/// ```
public struct HTTPSyncTransport: SyncTransport {
    /// The server's sync endpoint; requests go to `url/push` and `url/pull`.
    public let url: URL
    /// Headers sent with every request, such as `Authorization`.
    public let headers: [String: String]
    private let session: URLSession

    public init(url: URL, headers: [String: String] = [:], session: URLSession = .shared) {
        self.url = url
        self.headers = headers
        self.session = session
    }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        try await send(request, to: "push")
    }

    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        try await send(request, to: "pull")
    }

    /// How long a request waits for the server's answer. Longer than URLSession's 60 s: a
    /// server under load may take that long to apply a push, and giving up sooner only sends
    /// it again (it is applied once either way).
    static let answerTimeout: TimeInterval = 300

    private func send<Request: Encodable, Response: Decodable>(_ body: Request, to operation: String) async throws -> Response {
        var request = URLRequest(url: url.appendingPathComponent(operation))
        request.httpMethod = "POST"
        request.timeoutInterval = Self.answerTimeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let json = try SyncJSON.encoder.encode(body)
        if json.count >= Gzip.threshold {
            request.httpBody = try Gzip.compress(json)
            request.setValue("gzip", forHTTPHeaderField: "Content-Encoding")
        } else {
            request.httpBody = json
        }
        var (data, response): (Data, URLResponse)
        do {
            (data, response) = try await session.data(for: request)
            // URLSession inflates a gzip answer where it asked for one itself; otherwise it is here.
            if Gzip.isGzip(data) { data = try Gzip.decompress(data, limit: Int.max) }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.transportFailed, "\(operation) to \(url) failed: \(error.localizedDescription); sync again later: nothing is lost or applied twice")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            if let failure = try? SyncJSON.decoder.decode(SyncHTTPFailure.self, from: data) { throw SyncError(failure.code, failure.message) }
            throw SyncError(.transportFailed, "\(operation) to \(url) answered HTTP \(status); sync again later")
        }
        do {
            return try SyncJSON.decoder.decode(Response.self, from: data)
        } catch {
            throw SyncError(.malformedMessage, "the server's \(operation) answer is not the sync wire format: \(error)")
        }
    }
}

/// The body of a refused HTTP request.
struct SyncHTTPFailure: Codable {
    let code: SyncError.Code
    let message: String
}
