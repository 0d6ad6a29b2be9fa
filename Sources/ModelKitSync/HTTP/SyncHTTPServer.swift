import Dispatch
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server for a ``SyncHTTPHandler``, on POSIX sockets: for demos, tests and
/// `modelkit-sync-server`. It speaks plain HTTP with `Content-Length` bodies, keep-alive and
/// pipelining, a thread per connection. A request it cannot frame safely (a malformed head, a
/// bad or conflicting `Content-Length`, a body over the handler's ``SyncHTTPHandler/maximumBodySize``,
/// a head over 1 MiB, `Transfer-Encoding`) gets an HTTP error with a ``SyncError`` body, and the
/// connection is closed. Behind a real deployment, mount the handler in your HTTP framework
/// (Vapor, Hummingbird) or put TLS in front.
public final class SyncHTTPServer: Sendable {
    public let handler: SyncHTTPHandler
    /// The port the server listens on (the one the system chose, if 0 was asked for).
    public let port: UInt16
    private let listener: Int32
    private let stopped = Atomic(false)

    /// Listens on `host` (an IPv4 address) and `port` (0: any free port).
    /// - Throws: ``SyncError/Code/transportFailed`` when the address cannot be bound.
    public init(handler: SyncHTTPHandler, host: String = "127.0.0.1", port: UInt16 = 0) throws {
        self.handler = handler
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SyncError(.transportFailed, "cannot open a socket: \(String(cString: strerror(errno)))") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(descriptor)
            throw SyncError(.transportFailed, "\(host) is not an IPv4 address")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw SyncError(.transportFailed, "cannot listen on \(host):\(port): \(reason)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        listener = descriptor
    }

    deinit { stop() }

    /// Accepts connections on a thread of its own until ``stop()``.
    public func start() {
        Thread.detachNewThread { [self] in run() }
    }

    /// Accepts connections on the calling thread until ``stop()``.
    public func run() {
        while !stopped.load(ordering: .relaxed) {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    /// Stops accepting connections.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// Answers requests on one connection until the client closes it, or asks to, or sends a
    /// request the parser refuses: that one is answered with its status and the connection
    /// closed, as what follows cannot be framed.
    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var parser = HTTPRequestParser(maximumBodySize: handler.maximumBodySize)
        while true {
            switch parser.next() {
            case .needMoreBytes:
                guard let bytes = Self.read(from: connection) else { return }
                parser.receive(bytes)
            case .request(let request):
                let response = Self.wait {
                    await self.handler.handle(method: request.method, path: request.target, headers: request.headers, body: request.body)
                }
                guard Self.write(response, keepAlive: request.keepAlive, to: connection), request.keepAlive else { return }
            case .refuse(let refusal):
                let response = SyncHTTPHandler.failure(refusal.status, SyncError(.malformedMessage, refusal.message))
                if Self.write(response, keepAlive: false, to: connection) { Self.drain(connection) }
                return
            }
        }
    }

    private static func write(_ response: SyncHTTPHandler.Response, keepAlive: Bool, to connection: Int32) -> Bool {
        var head = "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Error")\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        return write(Data(head.utf8) + response.body, to: connection)
    }

    /// After a refusal, reads and drops what the client still sends, for up to a second, before
    /// the connection closes: closing with unread bytes resets it, and the client would see the
    /// reset rather than the refusal. It costs the connection's thread that second at most.
    private static func drain(_ connection: Int32) {
        shutdown(connection, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = DispatchTime.now() + .seconds(1)
        while DispatchTime.now() < deadline, read(from: connection) != nil {}
    }

    /// The next bytes from `connection`; nil once it is closed or fails.
    private static func read(from connection: Int32) -> ArraySlice<UInt8>? {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let count = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
        return count > 0 ? chunk[..<count] : nil
    }

    private static func write(_ data: Data, to connection: Int32) -> Bool {
        data.withUnsafeBytes { bytes in
            var sent = 0
            while sent < bytes.count {
                let count = send(connection, bytes.baseAddress! + sent, bytes.count - sent, Self.sendFlags)
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif

    /// Runs `body` and waits for it on the calling thread (a connection's own, not a
    /// cooperative one). Package access: the fuzz target's synchronous callback waits the same way.
    package static func wait<R: Sendable>(_ body: @escaping @Sendable () async -> R) -> R {
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
}
