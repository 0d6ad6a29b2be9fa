import Foundation
@testable import ModelKitSync
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ``SyncHTTPServer`` on a real socket, sent bytes no client library would send.
@Suite struct SyncHTTPServerHostileTests {
    @Test func aNegativeContentLengthIsRefusedAndTheServerAnswersTheNextConnection() async throws {
        let world = try SyncWorld()
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: world.server))
        http.start()
        defer { http.stop() }

        let refused = try await RawConnection(port: http.port).exchange("POST /sync/pull HTTP/1.1\r\nContent-Length: -5\r\n\r\nhello")
        #expect(refused.hasPrefix("HTTP/1.1 400 "))
        #expect(refused.contains("Connection: close\r\n"))
        let body = Data(refused[refused.range(of: "\r\n\r\n")!.upperBound...].utf8)
        let failure = try JSONDecoder().decode(SyncHTTPFailure.self, from: body)
        #expect(failure.code == .malformedMessage && failure.message.contains("Content-Length"))

        // Two pipelined pulls on a new connection: both answered, in order.
        let pull = String(decoding: try JSONEncoder().encode(SyncPullRequest(envelope: SyncEnvelope(schema: world.server.schema.fingerprint, device: "d"), cursor: nil)), as: UTF8.self)
        let request = "POST /sync/pull HTTP/1.1\r\nContent-Length: \(pull.utf8.count)\r\n\r\n\(pull)"
        let answers = try await RawConnection(port: http.port).exchange(request + request)
        #expect(answers.components(separatedBy: "HTTP/1.1 200 OK\r\n").count == 3)
        #expect(answers.components(separatedBy: "\"isFullDownload\":true").count == 3)
    }

    @Test func aChunkedRequestIsRefusedWith501() async throws {
        let world = try SyncWorld()
        let http = try SyncHTTPServer(handler: SyncHTTPHandler(server: world.server))
        http.start()
        defer { http.stop() }
        let answer = try await RawConnection(port: http.port).exchange("POST /sync/pull HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 501 "))
    }
}

/// A TCP connection to the loopback address, for bytes that `URLSession` would not send.
struct RawConnection: Sendable {
    let descriptor: Int32

    init(port: UInt16) throws {
        #if canImport(Glibc)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw SyncError(.transportFailed, "cannot connect to port \(port)")
        }
        // A server that never answers fails the test rather than hanging it; long, since a full
        // run can starve the server's handler for a minute or two (see `SyncLiveTests.eventually`).
        var timeout = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Sends `request`, closes the sending side, and returns what the server sends until it
    /// closes the connection. Closes the connection. The blocking calls run on a thread of their
    /// own: on Swift's cooperative pool (two threads on two cores) they could starve the server's
    /// handler of the threads it answers on.
    func exchange(_ request: String) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try blockingExchange(request) }) }
        }
    }

    private func blockingExchange(_ request: String) throws -> String {
        defer { close(descriptor) }
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw SyncError(.transportFailed, "the server stopped taking bytes") }
            sent += count
        }
        shutdown(descriptor, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { throw SyncError(.transportFailed, "the server neither answered nor closed the connection") }
            if count == 0 { return String(decoding: answer, as: UTF8.self) }
            answer += chunk[..<count]
        }
    }
}
