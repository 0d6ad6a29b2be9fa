import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server for a ``SyncHTTPHandler``, on POSIX sockets: for demos, tests and
/// `modelkit-sync-server`. It speaks plain HTTP with `Content-Length` bodies, keep-alive and
/// pipelining (answered in order). One I/O thread watches every connection, non-blocking, with
/// `poll`, and hands each complete request to a task that runs the handler: an idle keep-alive
/// connection or a pull held for news (``SyncPullRequest/wait``) costs its socket and buffers,
/// no thread, and an idle server sleeps. A request it cannot
/// frame safely (a malformed head, a bad or conflicting `Content-Length`, a body over the
/// handler's ``SyncHTTPHandler/maximumBodySize``, a head over 1 MiB, `Transfer-Encoding`) gets
/// an HTTP error with a ``SyncError`` body, and the connection is closed. Behind a real
/// deployment, mount the handler in your HTTP framework (Vapor, Hummingbird) or put TLS in front.
public final class SyncHTTPServer: Sendable {
    public let handler: SyncHTTPHandler
    /// The port the server listens on (the one the system chose, if 0 was asked for).
    public let port: UInt16
    private let listener: Int32
    private let mailbox: HTTPMailbox
    /// The loop, until ``run()`` takes it (or ``stop()`` closes it unrun).
    private let loop: Mutex<HTTPEventLoop?>
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
        guard bound == 0, listen(descriptor, SOMAXCONN) == 0 else {
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
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        listener = descriptor
        do {
            mailbox = try HTTPMailbox()
        } catch {
            close(descriptor)
            throw error
        }
        loop = Mutex(HTTPEventLoop(handler: handler, listener: descriptor, mailbox: mailbox))
    }

    deinit { stop() }

    /// Serves on a thread of its own until ``stop()``.
    public func start() {
        Thread.detachNewThread { [self] in run() }
    }

    /// Serves on the calling thread until ``stop()``; returns at once if the server is already
    /// running or stopped.
    public func run() {
        guard let loop = loop.withLock({ $0.take() }) else { return }
        loop.run()
    }

    /// Stops accepting connections at once, and closes the open ones: requests under way are
    /// abandoned (their handlers run to the end, unanswered).
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        // The listener closes with the loop; shut now, it refuses connections from here on.
        shutdown(listener, Int32(SHUT_RDWR))
        if let unrun = loop.withLock({ $0.take() }) {
            unrun.close()
        } else {
            mailbox.requestStop()
        }
    }
}
