import Foundation
import ModelKitSync
import Synchronization

/// One input's trip through what the network hands a sync server, and the rules it must keep.
/// A broken rule stops the process with `fatalError`, which libFuzzer reports as a crash,
/// saving the input; so does any crash in the code under test.
///
/// - The HTTP parser decides the same whether the input comes in one read or in several.
/// - Each request the parser frames, and the input itself as a push's and as a pull's body, go
///   through ``SyncHTTPHandler`` to a ``SyncServer``; a request it refuses (any status but 200)
///   leaves every row of the store as it was.
/// - A push or pull that decodes encodes to one that decodes the same: the wire format
///   round-trips.
///
/// Each input starts on an empty store, so that a crash replays from its input alone.
final class SyncFuzzer: Sendable {
    static let shared = SyncFuzzer()

    /// Seeds write the schema's digest as this, replaced in every body by the fuzzed models'
    /// own, so that they reach past the schema check however the models change.
    static let schemaPlaceholder = Array("$schema".utf8)

    private let server: Mutex<FuzzServer>

    private init() {
        do {
            server = Mutex(try FuzzServer())
        } catch {
            fatalError("cannot make the fuzzed server: \(error)")
        }
    }

    func run(_ input: [UInt8]) {
        Self.checkRoundTrip(of: SyncPushRequest.self, input)
        Self.checkRoundTrip(of: SyncPullRequest.self, input)
        server.withLock { server in
            var rows = server.empty
            for request in Self.frame(input, maximumBodySize: server.handler.maximumBodySize) {
                rows = Self.send(request.method, request.target, request.headers, request.body, to: server, holding: rows)
            }
            for operation in ["push", "pull"] {
                rows = Self.send("POST", "/sync/\(operation)", [:], Data(input), to: server, holding: rows)
            }
            guard rows != server.empty else { return }
            do {
                server = try FuzzServer()
            } catch {
                fatalError("cannot make the fuzzed server again: \(error)")
            }
        }
    }

    /// The requests the parser frames from `input` in one read, checked against those it frames
    /// from reads of a few bytes each (their size taken from the input).
    private static func frame(_ input: [UInt8], maximumBodySize: Int) -> [HTTPRequest] {
        let whole = decisions(reads: [input[...]], maximumBodySize: maximumBodySize)
        let size = 1 + Int(input.last ?? 0) % 17
        let pieces = stride(from: 0, to: input.count, by: size).map { input[$0..<min($0 + size, input.count)] }
        let split = decisions(reads: pieces, maximumBodySize: maximumBodySize)
        guard whole == split else { fatalError("the parser decides \(whole) on one read and \(split) on reads of \(size) bytes") }
        return whole.compactMap { if case .request(let request) = $0 { request } else { nil } }
    }

    /// The parser's decisions on `reads`, until it needs bytes past them or refuses. A small
    /// head limit puts a head that is too large within the fuzzer's reach.
    private static func decisions(reads: [ArraySlice<UInt8>], maximumBodySize: Int) -> [HTTPRequestParser.Decision] {
        var parser = HTTPRequestParser(maximumBodySize: maximumBodySize, maximumHeadSize: 2048)
        var reads = reads[...]
        var decisions: [HTTPRequestParser.Decision] = []
        while true {
            let decision = parser.next()
            switch decision {
            case .needMoreBytes:
                guard let read = reads.popFirst() else { return decisions }
                parser.receive(read)
            case .request:
                decisions.append(decision)
            case .refuse:
                decisions.append(decision)
                return decisions
            }
        }
    }

    /// Sends a request to `server`, whose store holds `rows`, and returns the rows after it.
    private static func send(
        _ method: String, _ path: String, _ headers: [String: String], _ body: Data, to server: FuzzServer, holding rows: FuzzServer.Snapshot
    ) -> FuzzServer.Snapshot {
        let body = Data(replacingPlaceholder(in: Array(body), with: server.fingerprint))
        let response = waitFor { await server.handler.handle(method: method, path: path, headers: headers, body: body) }
        let after: FuzzServer.Snapshot
        do {
            after = try server.snapshot()
        } catch {
            fatalError("cannot read the fuzzed store: \(error)")
        }
        if response.status != 200, after != rows {
            fatalError("a request refused with \(response.status) changed the store: \(String(decoding: response.body, as: UTF8.self))")
        }
        return after
    }

    private static func checkRoundTrip<Message: Codable & Equatable>(of type: Message.Type, _ body: [UInt8]) {
        guard let message = try? JSONDecoder().decode(Message.self, from: Data(body)) else { return }
        do {
            let again = try JSONDecoder().decode(Message.self, from: JSONEncoder().encode(message))
            guard again == message else { fatalError("\(message) decodes as \(again) after a round trip") }
        } catch {
            fatalError("\(message) does not round-trip: \(error)")
        }
    }

    private static func replacingPlaceholder(in bytes: [UInt8], with fingerprint: String) -> [UInt8] {
        guard bytes.count >= schemaPlaceholder.count else { return bytes }
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: schemaPlaceholder) {
                result += fingerprint.utf8
                index += schemaPlaceholder.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}

/// Runs `body` and waits for it on the calling thread: libFuzzer's callback is synchronous.
private func waitFor<R: Sendable>(_ body: @escaping @Sendable () async -> R) -> R {
    let result = Mutex<R?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let value = await body()
        result.withLock { $0 = value }
        done.signal()
    }
    done.wait()
    return result.withLock { $0! }
}
