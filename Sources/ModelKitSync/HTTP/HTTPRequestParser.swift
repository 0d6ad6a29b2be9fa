import Foundation

/// Frames HTTP/1.1 requests out of the bytes a connection delivers, without doing any I/O: fed
/// bytes with ``receive(_:)``, each ``next()`` decides whether more bytes are needed, a request
/// is complete, or the connection is to be refused. Keeping the decisions free of sockets lets
/// every hostile input be tested (and fuzzed) directly.
///
/// Bodies come only with a `Content-Length`; a request without one has none. Everything that
/// could frame a body in two ways is refused, and a refusal is final for the connection, as
/// the stream after it cannot be trusted: a malformed head or `Content-Length` (400), a body
/// over ``maximumBodySize`` (413, before it is read), a head over ``maximumHeadSize`` (431),
/// `Transfer-Encoding` (501), another HTTP version than 1.x (505). Memory stays within the head
/// limit plus the body limit, plus what one read brings.
package struct HTTPRequestParser {
    /// What to do next with the connection.
    package enum Decision: Equatable {
        /// Read more bytes and pass them to ``receive(_:)``.
        case needMoreBytes
        /// Answer this request; then, if it keeps the connection alive, ask again.
        case request(HTTPRequest)
        /// Answer with this refusal and close the connection.
        case refuse(HTTPRefusal)
    }

    /// The largest body taken, in bytes.
    package let maximumBodySize: Int
    /// The largest head taken, in bytes, up to and with its blank line.
    package let maximumHeadSize: Int

    /// The bytes received and not yet dropped; the next request starts at `start`.
    private var buffer: [UInt8] = []
    private var start = 0
    private var state = State.head(scanned: 0)

    /// Where the parser is in the next request; offsets count from `start`.
    private enum State {
        /// Looking for the head's end; the first `scanned` bytes hold none.
        case head(scanned: Int)
        /// The head is read; its body is the `length` bytes at `bodyStart`.
        case body(HTTPHead, bodyStart: Int, length: Int)
        case refused(HTTPRefusal)
    }

    package init(maximumBodySize: Int, maximumHeadSize: Int = 1 << 20) {
        self.maximumBodySize = maximumBodySize
        self.maximumHeadSize = maximumHeadSize
    }

    /// Takes bytes read from the connection. After a refusal, they are dropped.
    package mutating func receive(_ bytes: some Sequence<UInt8>) {
        if case .refused = state { return }
        // Requests answered are dropped here, once per read rather than once per request, so
        // that many small pipelined requests cost no more than one pass over their bytes.
        buffer.removeFirst(start)
        start = 0
        buffer.append(contentsOf: bytes)
    }

    /// The next decision on the bytes received so far.
    package mutating func next() -> Decision {
        let received = buffer.count - start
        if case .head(let scanned) = state {
            guard let end = headEnd(from: scanned) else {
                guard received < maximumHeadSize else { return refuse(Self.headTooLarge(maximumHeadSize)) }
                state = .head(scanned: received)
                return .needMoreBytes
            }
            guard end <= maximumHeadSize else { return refuse(Self.headTooLarge(maximumHeadSize)) }
            do throws(HTTPRefusal) {
                let head = try HTTPHead(buffer[start..<(start + end - 4)])
                state = .body(head, bodyStart: end, length: try bodyLength(of: head))
            } catch {
                return refuse(error)
            }
        }
        switch state {
        case .head: return .needMoreBytes
        case .refused(let refusal): return .refuse(refusal)
        case .body(let head, let bodyStart, let length):
            guard received - bodyStart >= length else { return .needMoreBytes }
            let body = start + bodyStart
            let request = HTTPRequest(
                method: head.method, target: head.target, headers: head.headers, body: Data(buffer[body..<(body + length)]),
                keepAlive: Self.keepsAlive(head))
            start = body + length
            state = .head(scanned: 0)
            return .request(request)
        }
    }

    private mutating func refuse(_ refusal: HTTPRefusal) -> Decision {
        state = .refused(refusal)
        buffer = []
        start = 0
        return .refuse(refusal)
    }

    /// The offset after the head's blank line (CRLF CRLF), if it has come.
    private func headEnd(from scanned: Int) -> Int? {
        var index = start + max(scanned - 3, 0)
        while index + 3 < buffer.count {
            if buffer[index] == UInt8(ascii: "\r"), buffer[index + 1] == UInt8(ascii: "\n"), buffer[index + 2] == UInt8(ascii: "\r"),
                buffer[index + 3] == UInt8(ascii: "\n")
            {
                return index + 4 - start
            }
            index += 1
        }
        return nil
    }

    /// The body's length, from `Content-Length`: digits only, the same in every field and list
    /// element that repeats it, at most ``maximumBodySize``.
    private func bodyLength(of head: HTTPHead) throws(HTTPRefusal) -> Int {
        guard head.values(of: "transfer-encoding").isEmpty else {
            throw HTTPRefusal(501, "this server takes a body only with a Content-Length, not a Transfer-Encoding (such as chunked)")
        }
        let lengths = head.listElements(of: "content-length")
        guard let first = lengths.first else { return 0 }
        guard lengths.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }) else {
            throw HTTPRefusal(400, "the Content-Length is not a number of bytes: \(head.values(of: "content-length").joined(separator: ", "))")
        }
        let values = lengths.map { Int($0) }
        guard values.allSatisfy({ $0 == values[0] }) else { throw HTTPRefusal(400, "the request has different Content-Lengths: \(lengths.joined(separator: ", "))") }
        guard let length = values[0], length <= maximumBodySize else {
            throw HTTPRefusal(413, "the request's body is \(first) bytes, over the server's \(maximumBodySize)")
        }
        return length
    }

    /// Whether the connection stays open after the answer: HTTP/1.1's default unless
    /// `Connection: close`, and HTTP/1.0's only with `Connection: keep-alive`.
    private static func keepsAlive(_ head: HTTPHead) -> Bool {
        let options = head.listElements(of: "connection")
        return head.minorVersion >= 1 ? !options.contains("close") : options.contains("keep-alive")
    }

    private static func headTooLarge(_ limit: Int) -> HTTPRefusal {
        HTTPRefusal(431, "the request's head is over the server's \(limit) bytes")
    }
}

/// A request as ``HTTPRequestParser`` frames it.
package struct HTTPRequest: Equatable, Sendable {
    package var method: String
    package var target: String
    /// The header fields, names lowercased; one sent more than once has its values joined with `, `.
    package var headers: [String: String]
    package var body: Data
    /// Whether the client keeps the connection open for another request.
    package var keepAlive: Bool
}

/// A request the server will not take: the HTTP status to answer, and why, for the client.
package struct HTTPRefusal: Error, Equatable, Sendable {
    package var status: Int
    package var message: String

    package init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }
}
