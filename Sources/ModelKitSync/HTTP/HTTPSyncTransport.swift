import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Reaches a sync server over HTTP: `POST <url>/push` and `POST <url>/pull`, JSON bodies (the
/// messages' `Codable` forms), gzip-compressed both ways past a kilobyte, on `URLSession`. Pulls
/// ask for pages in the compact binary form too (``PageFormat/binary``, the default), and read
/// whichever the server answers in: one that does not speak it answers JSON. A failed request throws
/// ``SyncError/Code/transportFailed``; the server's refusals come back as the ``SyncError``
/// it sent (status 4xx or 5xx, body `{"code": …, "message": …}`), carrying the answer's
/// `Retry-After` as ``SyncError/retryAfter``. A pull's ``SyncPullRequest/wait`` goes to the
/// server, and the request's timeout is that much longer than ``timeout``.
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
    /// How long a request may take, in seconds, besides a pull's wait: 300 by default, longer
    /// than URLSession's 60, since a server under load may take that long to apply a push and
    /// giving up sooner only sends it again (it is applied once either way).
    public let timeout: Double
    /// The form pulled pages are asked for in.
    public let pageFormat: PageFormat
    private let session: URLSession

    /// The form of a pull's answer.
    public enum PageFormat: Sendable {
        /// The compact binary form (`Accept: application/vnd.modelkit-sync`), JSON accepted too:
        /// several times smaller and faster to read.
        case binary
        /// JSON only, as another language's client reads it.
        case json
    }

    public init(url: URL, headers: [String: String] = [:], session: URLSession = .shared, timeout: Double = 300, pageFormat: PageFormat = .binary) {
        self.url = url
        self.headers = headers
        self.session = session
        self.timeout = timeout
        self.pageFormat = pageFormat
    }

    /// A ``SyncHTTPHandler`` holds a pull that asks to wait.
    public var supportsWaiting: Bool { true }

    public func push(_ request: SyncPushRequest) async throws -> SyncPushResponse {
        let (data, _) = try await send(request, to: "push")
        return try decode(data, of: "push")
    }

    public func pull(_ request: SyncPullRequest) async throws -> SyncPullResponse {
        let binary = pageFormat == .binary
        let (data, type) = try await send(request, to: "pull", waiting: request.wait ?? 0, accept: binary ? "\(SyncBinaryPage.mediaType), application/json" : nil)
        guard binary, type?.lowercased().hasPrefix(SyncBinaryPage.mediaType) == true else { return try decode(data, of: "pull") }
        return try SyncBinaryPage.decode(data)
    }

    private func decode<Response: Decodable>(_ data: Data, of operation: String) throws -> Response {
        do {
            return try SyncJSON.decoder.decode(Response.self, from: data)
        } catch {
            throw SyncError(.malformedMessage, "the server's \(operation) answer is not the sync wire format: \(error)")
        }
    }

    /// Sends `body` and returns the answer's body and `Content-Type`.
    private func send(_ body: some Encodable, to operation: String, waiting: Double = 0, accept: String? = nil) async throws -> (Data, String?) {
        var request = URLRequest(url: url.appendingPathComponent(operation))
        request.timeoutInterval = timeout + max(0, waiting.isFinite ? waiting : 0)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("gzip", forHTTPHeaderField: "Accept-Encoding")
        if let accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
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
        let http = response as? HTTPURLResponse
        let status = http?.statusCode ?? 0
        guard status == 200 else {
            let retryAfter = Self.retryAfter(http?.value(forHTTPHeaderField: "Retry-After"))
            if let failure = try? SyncJSON.decoder.decode(SyncHTTPFailure.self, from: data) {
                throw SyncError(failure.code, failure.message, retryAfter: retryAfter)
            }
            throw SyncError(.transportFailed, "\(operation) to \(url) answered HTTP \(status); sync again later", retryAfter: retryAfter)
        }
        return (data, http?.value(forHTTPHeaderField: "Content-Type"))
    }
}

extension HTTPSyncTransport {
    /// A `Retry-After` header's wait in seconds: a number of seconds, or an HTTP date.
    static func retryAfter(_ header: String?, now: Date = Date()) -> Double? {
        guard let header = header?.trimmingCharacters(in: .whitespaces), !header.isEmpty else { return nil }
        if let seconds = Double(header), seconds.isFinite { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: header).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// The body of a refused HTTP request.
struct SyncHTTPFailure: Codable {
    let code: SyncError.Code
    let message: String
}
