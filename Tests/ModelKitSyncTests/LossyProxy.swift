import Foundation
import ModelKitSync
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TCP proxy on the loopback address to a local port which, while ``isDropping``, cuts
/// connections at random points: each chunk of bytes read from either side is, with a chance
/// of one in four, passed on only up to a random byte (possibly all of it, or none) before both
/// sides are closed. A request is cut before, inside or after its body, a response inside its
/// head or body, or lost whole after the server has acted on the request. A side's orderly end
/// is passed on as one. Blocking sockets, two threads a connection: a test's few devices.
final class LossyProxy: Sendable {
    let port: UInt16
    private let target: UInt16
    private let listener: Int32
    private let state: Mutex<State>

    private struct State {
        var random: SyncConvergenceTests.Generator
        var dropping = true
        var chunks = 0
        var cuts = 0
    }

    init(to target: UInt16, seed: UInt64) throws {
        self.target = target
        state = Mutex(State(random: SyncConvergenceTests.Generator(state: seed)))
        let listener = try Self.socket()
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw SyncError(.transportFailed, "the proxy cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Whether connections are being cut.
    var isDropping: Bool {
        get { state.withLock { $0.dropping } }
        set { state.withLock { $0.dropping = newValue } }
    }

    /// How many chunks of bytes went through (cut or not), and how many connections were cut.
    var counts: (chunks: Int, cuts: Int) { state.withLock { ($0.chunks, $0.cuts) } }

    /// Stops accepting connections; those open end as either side closes them.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptConnections() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                return
            }
            guard let server = try? Self.socket(), connect(server, port: target) else {
                close(client)
                continue
            }
            let pair = Pair(client, server)
            Thread.detachNewThread { [self] in pump(from: client, to: server, pair) }
            Thread.detachNewThread { [self] in pump(from: server, to: client, pair) }
        }
    }

    /// Passes bytes from `source` to `destination` until `source` ends its side (passed on as
    /// the end of `destination`'s), a cut or a failure (both sides shut).
    private func pump(from source: Int32, to destination: Int32, _ pair: Pair) {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count == 0 {
                shutdown(destination, Int32(SHUT_WR))
                return pair.release()
            }
            guard count > 0 else { return pair.cut() }
            let cut = state.withLock { state -> Int? in
                state.chunks += 1
                guard state.dropping, Int.random(in: 0..<4, using: &state.random) == 0 else { return nil }
                state.cuts += 1
                return Int.random(in: 0...count, using: &state.random)
            }
            var sent = 0
            while sent < (cut ?? count) {
                let written = chunk[sent..<(cut ?? count)].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Self.sendFlags) }
                guard written > 0 else { return pair.cut() }
                sent += written
            }
            if cut != nil { return pair.cut() }
        }
    }

    /// The two sockets of a proxied connection, closed once both pumps have ended.
    private final class Pair: Sendable {
        let sockets: (Int32, Int32)
        private let pumps = Atomic(2)

        init(_ a: Int32, _ b: Int32) { sockets = (a, b) }

        /// Shuts both sides, which ends the other pump too, and ends this one.
        func cut() {
            shutdown(sockets.0, Int32(SHUT_RDWR))
            shutdown(sockets.1, Int32(SHUT_RDWR))
            release()
        }

        func release() {
            guard pumps.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
            close(sockets.0)
            close(sockets.1)
        }
    }

    private static func socket() throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw SyncError(.transportFailed, "the proxy cannot open a socket") }
        #if canImport(Darwin)
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
        #endif
        return descriptor
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func connect(_ descriptor: Int32, port: UInt16) -> Bool {
        var address = Self.loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        if connected != 0 { close(descriptor) }
        return connected == 0
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif
}
