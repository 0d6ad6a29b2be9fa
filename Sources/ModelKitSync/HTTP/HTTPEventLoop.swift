import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The I/O of ``SyncHTTPServer`` on one thread: accepts connections, reads and frames their
/// requests, hands each complete one to a task that runs the handler, and writes the answers
/// the tasks leave in the mailbox. Every socket is non-blocking and watched by one poller, so a
/// connection that waits (idle between requests, or for a held pull's answer) costs its
/// buffers and no thread, and the loop sleeps while nothing happens.
final class HTTPEventLoop {
    private let handler: SyncHTTPHandler
    private let listener: Int32
    private let mailbox: HTTPMailbox
    private let poller: EventPoller
    private var connections: [Int32: HTTPConnection] = [:]
    private var nextID: UInt64 = 0
    /// Connections draining after a refusal, whose deadlines bound the poller's wait.
    private var draining: Set<Int32> = []
    /// When accepting failed for want of descriptors: when to try again (or sooner, once a
    /// connection closes).
    private var acceptPausedUntil: ContinuousClock.Instant?
    /// Where each read lands before the connection's parser takes it: one buffer for all.
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)

    init(handler: SyncHTTPHandler, listener: Int32, mailbox: HTTPMailbox) {
        self.handler = handler
        self.listener = listener
        self.mailbox = mailbox
        poller = EventPoller()
        poller.add(listener, .read)
        poller.add(mailbox.readEnd, .read)
    }

    /// Serves until the mailbox says stop, then closes every connection and the listener.
    func run() {
        while true {
            for event in poller.wait(milliseconds: timeout()) {
                if event.descriptor == listener {
                    acceptAll()
                } else if let connection = connections[event.descriptor] {
                    handle(event, on: connection)
                }
            }
            let (answers, stopping) = mailbox.take()
            if stopping { break }
            for answer in answers { deliver(answer) }
            expireDeadlines()
        }
        close()
    }

    /// Closes every connection and the listener; answers still to come are dropped.
    func close() {
        for connection in connections.values { _ = closeDescriptor(connection.descriptor) }
        connections = [:]
        _ = closeDescriptor(listener)
        mailbox.close()
    }

    private func acceptAll() {
        while true {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    // Out of descriptors: the listener stays readable, so stop watching it a while.
                    poller.change(listener, .none)
                    acceptPausedUntil = .now + .milliseconds(100)
                    return
                default: return
                }
            }
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            var yes: Int32 = 1
            // Answers go out whole at once: there is nothing for Nagle's algorithm to wait for.
            setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            #if canImport(Darwin)
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &yes, socklen_t(MemoryLayout<Int32>.size))
            #endif
            nextID &+= 1
            connections[descriptor] = HTTPConnection(descriptor: descriptor, id: nextID, maximumBodySize: handler.maximumBodySize)
            poller.add(descriptor, .read)
        }
    }

    private func handle(_ event: PollEvent, on connection: HTTPConnection) {
        if event.failed { return close(connection) }
        switch connection.phase {
        case .reading where event.readable:
            switch connection.receive(into: &buffer) {
            case nil: break
            case 0: close(connection)
            case let count?:
                connection.parser.receive(buffer[..<count])
                advance(connection)
            }
        case .draining where event.readable:
            if connection.receive(into: &buffer) == 0 { close(connection) }
        case .writing(let then) where event.writable:
            flush(connection, then: then)
        default:
            break
        }
    }

    /// Takes the next decision on what the connection sent: read on, answer a request, or refuse.
    private func advance(_ connection: HTTPConnection) {
        switch connection.parser.next() {
        case .needMoreBytes:
            connection.phase = .reading
            watch(connection, for: .read)
        case .request(let request):
            connection.phase = .handling(keepAlive: request.keepAlive)
            watch(connection, for: .none)
            let (handler, mailbox, descriptor, id) = (handler, mailbox, connection.descriptor, connection.id)
            Task {
                let response = await handler.handle(method: request.method, path: request.target, headers: request.headers, body: request.body)
                mailbox.post(HTTPMailbox.Answer(descriptor: descriptor, connection: id, response: response))
            }
        case .refuse(let refusal):
            connection.queue(SyncHTTPHandler.failure(refusal.status, SyncError(.malformedMessage, refusal.message)), keepAlive: false)
            flush(connection, then: .drain)
        }
    }

    private func deliver(_ answer: HTTPMailbox.Answer) {
        // The connection may have closed, and its descriptor gone to another, meanwhile.
        guard let connection = connections[answer.descriptor], connection.id == answer.connection,
            case .handling(let keepAlive) = connection.phase
        else { return }
        connection.queue(answer.response, keepAlive: keepAlive)
        flush(connection, then: keepAlive ? .nextRequest : .close)
    }

    private func flush(_ connection: HTTPConnection, then: HTTPConnection.AfterWrite) {
        switch connection.send() {
        case .failed:
            close(connection)
        case .blocked:
            connection.phase = .writing(then: then)
            watch(connection, for: .write)
        case .done:
            switch then {
            case .nextRequest:
                advance(connection)
            case .close:
                close(connection)
            case .drain:
                shutdown(connection.descriptor, Int32(SHUT_WR))
                connection.phase = .draining(until: .now + .seconds(1))
                draining.insert(connection.descriptor)
                watch(connection, for: .read)
            }
        }
    }

    private func watch(_ connection: HTTPConnection, for interest: PollInterest) {
        guard connection.interest != interest else { return }
        connection.interest = interest
        poller.change(connection.descriptor, interest)
    }

    private func close(_ connection: HTTPConnection) {
        poller.remove(connection.descriptor)
        _ = closeDescriptor(connection.descriptor)
        connections[connection.descriptor] = nil
        draining.remove(connection.descriptor)
        if acceptPausedUntil != nil { resumeAccepting() }
    }

    private func resumeAccepting() {
        acceptPausedUntil = nil
        poller.change(listener, .read)
    }

    /// Closes the drained connections whose second is up, and accepts again after a pause.
    private func expireDeadlines() {
        let now = ContinuousClock.now
        if let until = acceptPausedUntil, until <= now { resumeAccepting() }
        for descriptor in draining {
            guard let connection = connections[descriptor], case .draining(let until) = connection.phase, until <= now else { continue }
            close(connection)
        }
    }

    /// How long the poller may wait: until the next deadline, or for ever if there is none.
    private func timeout() -> Int32 {
        var deadlines = draining.compactMap { descriptor -> ContinuousClock.Instant? in
            guard case .draining(let until) = connections[descriptor]?.phase else { return nil }
            return until
        }
        if let until = acceptPausedUntil { deadlines.append(until) }
        guard let next = deadlines.min() else { return -1 }
        let left = (next - .now).components
        return Int32(clamping: max(0, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1))
    }
}
