import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc

/// A TCP proxy on 127.0.0.1 that delays every chunk it forwards, each way, as a database one
/// network hop away would: two threads a connection, each reading a chunk, waiting until
/// `delay` after it arrived, and writing it on. It counts the chunks clients send: each is a
/// round trip the client waits for, unless it sends again before the answer comes.
final class LatencyProxy: @unchecked Sendable {
    // Sendable: fields are set once in init; the threads share nothing else.
    private let listener: Int32
    private let target: sockaddr_in
    private let delay: Duration
    /// The port it listens on.
    let port: UInt16
    /// The chunks clients have sent so far.
    let clientSends = Atomic<Int>(0)

    init(targetHost: String, targetPort: UInt16, delay: Duration) throws {
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_port = targetPort.bigEndian
        guard inet_pton(AF_INET, targetHost == "localhost" ? "127.0.0.1" : targetHost, &target.sin_addr) == 1 else {
            throw LoadError("the proxy needs the server's IPv4 address, not \(targetHost)")
        }
        self.target = target
        self.delay = delay
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(listener, socketAddress, length) == 0 && listen(listener, 512) == 0
                    && getsockname(listener, socketAddress, &length) == 0
            }
        }
        guard bound else { throw LoadError("the proxy cannot listen: errno \(errno)") }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { self.acceptConnections() }
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var target = self.target
            let connected = withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            guard connected else {
                close(client)
                close(server)
                continue
            }
            for socket in [client, server] {
                var on: Int32 = 1
                setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
            }
            let pair = SocketPair(client, server)
            Thread.detachNewThread { self.forward(from: client, to: server, pair, counting: true) }
            Thread.detachNewThread { self.forward(from: server, to: client, pair, counting: false) }
        }
    }

    private func forward(from source: Int32, to destination: Int32, _ pair: SocketPair, counting: Bool) {
        defer { pair.finishOneWay() }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let clock = ContinuousClock()
        while true {
            // A child's exit interrupts blocking calls (SIGCHLD): those are tried again.
            let count = read(source, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            if counting { clientSends.add(1, ordering: .relaxed) }
            let due = clock.now + delay
            while clock.now < due {
                let left = clock.now.duration(to: due).components
                usleep(UInt32(max(1, left.attoseconds / 1_000_000_000_000)))
            }
            var sent = 0
            while sent < count {
                // MSG_NOSIGNAL: a peer gone (an instance exited) ends this connection, not the process.
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { break }
                sent += written
            }
            guard sent == count else { break }
        }
        shutdown(destination, Int32(SHUT_WR))
        shutdown(source, Int32(SHUT_RD))
    }
}
/// A proxied connection's two sockets, closed when both directions are done (the process would
/// otherwise run out of descriptors over a long run).
private final class SocketPair: @unchecked Sendable {
    // Sendable by its lock.
    private let lock = NSLock()
    private var open = 2
    private let sockets: (Int32, Int32)

    init(_ first: Int32, _ second: Int32) { sockets = (first, second) }

    func finishOneWay() {
        lock.lock()
        open -= 1
        let last = open == 0
        lock.unlock()
        if last {
            close(sockets.0)
            close(sockets.1)
        }
    }
}
#endif

struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
