import Foundation

/// A ``SyncServer`` as a function from an HTTP request to an HTTP response, for any Swift HTTP
/// framework to mount in a few lines (see the *Syncing without CloudKit* article for Vapor's and
/// Hummingbird's). `POST …/push` and `POST …/pull` take and answer JSON; a pull whose `Accept`
/// names `application/vnd.modelkit-sync` is answered in the compact binary page form instead
/// (what ``HTTPSyncTransport`` asks for). The request's headers reach the server's authorization
/// hook as credentials, lowercased.
public struct SyncHTTPHandler: Sendable {
    public let server: SyncServer
    /// The largest request body taken, in bytes; a larger one is refused with 413.
    public let maximumBodySize: Int

    public init(server: SyncServer, maximumBodySize: Int = 64 << 20) {
        self.server = server
        self.maximumBodySize = maximumBodySize
    }

    /// An HTTP response: status, headers and body.
    public struct Response: Sendable, Equatable {
        public var status: Int
        public var headers: [String: String]
        public var body: Data
    }

    /// Answers one request. A body sent with `Content-Encoding: gzip` is inflated (up to
    /// ``maximumBodySize``); an answer past a kilobyte is compressed when the request's
    /// `Accept-Encoding` has gzip, and says so in its `Content-Encoding`.
    public func handle(method: String, path: String, headers: [String: String], body: Data) async -> Response {
        guard method.uppercased() == "POST" else { return Self.failure(405, SyncError(.malformedMessage, "sync takes POST requests")) }
        guard body.count <= maximumBodySize else {
            return Self.failure(413, SyncError(.malformedMessage, "the request is \(body.count) bytes, over the server's \(maximumBodySize)"))
        }
        let credentials = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        var body = body
        if credentials["content-encoding"]?.lowercased() == "gzip" {
            do {
                body = try Gzip.decompress(body, limit: maximumBodySize)
            } catch let error as SyncError {
                return Self.failure(error.message.contains("more than") ? 413 : 400, error)
            } catch {
                return Self.failure(400, SyncError(.malformedMessage, "\(error)"))
            }
        }
        let gzipAnswer = credentials["accept-encoding"]?.lowercased().contains("gzip") == true
        let operation = path.split(separator: "?").first.map { $0.split(separator: "/").last.map(String.init) ?? "" } ?? ""
        do {
            switch operation {
            case "push":
                var request = try decode(SyncPushRequest.self, body)
                request.envelope.credentials.merge(credentials) { _, header in header }
                return try success(await server.push(request), gzip: gzipAnswer)
            case "pull":
                var request = try decode(SyncPullRequest.self, body)
                request.envelope.credentials.merge(credentials) { _, header in header }
                let page = try await server.pull(request)
                guard credentials["accept"]?.lowercased().contains(SyncBinaryPage.mediaType) == true else { return try success(page, gzip: gzipAnswer) }
                return try success(SyncBinaryPage.encode(page), type: SyncBinaryPage.mediaType, gzip: gzipAnswer)
            default:
                return Self.failure(404, SyncError(.malformedMessage, "\(path) is neither …/push nor …/pull"))
            }
        } catch let error as SyncError {
            return Self.failure(Self.status(of: error.code), error)
        } catch {
            return Self.failure(500, SyncError(.serverFailed, "\(error)"))
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T {
        do {
            return try SyncJSON.decoder.decode(T.self, from: body)
        } catch {
            throw SyncError(.malformedMessage, "the request is not a sync \(T.self): \(error)")
        }
    }

    private func success(_ value: some Encodable, gzip: Bool) throws -> Response {
        try success(try SyncJSON.encoder.encode(value), type: "application/json", gzip: gzip)
    }

    private func success(_ body: Data, type: String, gzip: Bool) throws -> Response {
        guard gzip, body.count >= Gzip.threshold else { return Response(status: 200, headers: ["Content-Type": type], body: body) }
        return Response(status: 200, headers: ["Content-Type": type, "Content-Encoding": "gzip"], body: try Gzip.compress(body))
    }

    /// A refusal: `status`, and `error` as JSON (a ``SyncHTTPFailure``).
    static func failure(_ status: Int, _ error: SyncError) -> Response {
        let body = (try? SyncJSON.encoder.encode(SyncHTTPFailure(code: error.code, message: error.message))) ?? Data()
        return Response(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    static func status(of code: SyncError.Code) -> Int {
        switch code {
        case .unauthorized: 401
        case .schemaMismatch, .tooFarBehind: 409
        case .malformedMessage: 400
        default: 500
        }
    }
}
