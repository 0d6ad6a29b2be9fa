import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One client's connection to ``SyncHTTPServer``, a non-blocking socket that only the server's
/// I/O thread touches: the requests framed from it so far, the response being sent, and what
/// the connection waits for. One request is answered at a time, so pipelined requests are
/// answered in order; the connection is not read while its request is handled.
final class HTTPConnection {
    enum Phase {
        /// Waiting for the bytes of the next request.
        case reading
        /// A task runs the handler on a request; then the connection closes unless `keepAlive`.
        case handling(keepAlive: Bool)
        /// Sending a response, and then doing `then`.
        case writing(then: AfterWrite)
        /// After a refusal: reading and dropping what the client still sends until it closes, or
        /// until `until`. Closing with unread bytes resets the connection, and the client would
        /// see the reset rather than the refusal.
        case draining(until: ContinuousClock.Instant)
    }

    enum AfterWrite {
        case nextRequest
        case close
        case drain
    }

    enum SendResult {
        case done
        /// The socket's buffer is full: send again when it is writable.
        case blocked
        case failed
    }

    let descriptor: Int32
    /// Tells this connection from a later one given the same descriptor number.
    let id: UInt64
    var parser: HTTPRequestParser
    var phase = Phase.reading
    /// What the server's poller watches on the socket now.
    var interest = PollInterest.read
    private var outgoing: [UInt8] = []
    private var sent = 0

    init(descriptor: Int32, id: UInt64, maximumBodySize: Int) {
        self.descriptor = descriptor
        self.id = id
        parser = HTTPRequestParser(maximumBodySize: maximumBodySize)
    }

    /// Sets `response` to be sent, saying whether the connection stays open after it.
    func queue(_ response: SyncHTTPHandler.Response, keepAlive: Bool) {
        var head = "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Error")\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        outgoing = Array(head.utf8) + response.body
        sent = 0
    }

    /// Sends as much of the queued response as the socket takes now.
    func send() -> SendResult {
        while sent < outgoing.count {
            let count = outgoing[sent...].withUnsafeBytes { sendBytes(descriptor, $0.baseAddress, $0.count, Self.sendFlags) }
            if count > 0 {
                sent += count
            } else if count < 0, errno == EINTR {
                continue
            } else {
                return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? .blocked : .failed
            }
        }
        outgoing = []
        sent = 0
        return .done
    }

    /// Reads what the socket holds into `buffer`: the count read, 0 once the client closed its
    /// side or the connection failed, nil if nothing is there yet.
    func receive(into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return count }
            if errno == EINTR { continue }
            return errno == EAGAIN || errno == EWOULDBLOCK ? nil : 0
        }
    }

    #if canImport(Glibc)
    private static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    private static let sendFlags: Int32 = 0
    #endif
}

/// `send(2)`, under a name that ``HTTPConnection/send()`` can call.
private func sendBytes(_ descriptor: Int32, _ bytes: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, bytes, count, flags)
}
