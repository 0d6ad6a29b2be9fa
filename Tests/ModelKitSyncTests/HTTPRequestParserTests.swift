import Foundation
@testable import ModelKitSync
import Testing

/// The HTTP request parser behind ``SyncHTTPServer``, on hostile and valid bytes, with no socket.
@Suite struct HTTPRequestParserTests {
    /// A head (and maybe a body) the parser refuses, with the status it answers.
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let bytes: String
        let status: Int
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = [
        Hostile(name: "negative Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: -1\r\n\r\n", status: 400),
        Hostile(name: "very negative Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: -9223372036854775808\r\n\r\n", status: 400),
        Hostile(name: "signed Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: +5\r\n\r\nhello", status: 400),
        Hostile(name: "letters for a Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: abc\r\n\r\n", status: 400),
        Hostile(name: "digits then letters", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5abc\r\n\r\nhello", status: 400),
        Hostile(name: "hexadecimal Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", status: 400),
        Hostile(name: "decimal point", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5.0\r\n\r\nhello", status: 400),
        Hostile(name: "empty Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length:\r\n\r\n", status: 400),
        Hostile(name: "trailing comma", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5,\r\n\r\nhello", status: 400),
        Hostile(name: "non-breaking space after the digits", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5\u{A0}\r\n\r\nhello", status: 400),
        Hostile(
            name: "two different Content-Lengths", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
            status: 400),
        Hostile(name: "two different lengths in a list", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5, 6\r\n\r\nhello!", status: 400),
        Hostile(
            name: "a length and an overflowing one", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5, 99999999999999999999\r\n\r\nhello",
            status: 400),
        Hostile(name: "overflowing Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", status: 413),
        Hostile(name: "Int.max Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 9223372036854775807\r\n\r\n", status: 413),
        Hostile(name: "body over the limit", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 1025\r\n\r\n", status: 413),
        Hostile(name: "chunked body", bytes: "POST /sync/push HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", status: 501),
        Hostile(
            name: "chunked with a Content-Length", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello",
            status: 501),
        Hostile(name: "empty head", bytes: "\r\n\r\n", status: 400),
        Hostile(name: "request line without a version", bytes: "POST /sync/push\r\n\r\n", status: 400),
        Hostile(name: "request line of one word", bytes: "POST\r\n\r\n", status: 400),
        Hostile(name: "two spaces in the request line", bytes: "POST  /sync/push HTTP/1.1\r\n\r\n", status: 400),
        Hostile(name: "space in the target", bytes: "POST /sync push HTTP/1.1\r\n\r\n", status: 400),
        Hostile(name: "control character in the target", bytes: "POST /sync/\u{1}push HTTP/1.1\r\n\r\n", status: 400),
        Hostile(name: "method with a parenthesis", bytes: "PO(ST /sync/push HTTP/1.1\r\n\r\n", status: 400),
        Hostile(name: "not HTTP", bytes: "POST /sync/push HTTX/1.1\r\n\r\n", status: 400),
        Hostile(name: "HTTP/2", bytes: "POST /sync/push HTTP/2.0\r\n\r\n", status: 505),
        Hostile(name: "bare LF ending a line", bytes: "POST /sync/push HTTP/1.1\nContent-Length: 5\r\n\r\nhello", status: 400),
        Hostile(name: "bare CR in a value", bytes: "POST /sync/push HTTP/1.1\r\nX-Note: a\rb\r\n\r\n", status: 400),
        Hostile(name: "header without a colon", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length 5\r\n\r\nhello", status: 400),
        Hostile(name: "space before the colon", bytes: "POST /sync/push HTTP/1.1\r\nContent-Length : 5\r\n\r\nhello", status: 400),
        Hostile(name: "folded header line", bytes: "POST /sync/push HTTP/1.1\r\nX-Note: a\r\n b\r\n\r\n", status: 400),
        Hostile(name: "empty header name", bytes: "POST /sync/push HTTP/1.1\r\n: value\r\n\r\n", status: 400),
        Hostile(name: "control character in a value", bytes: "POST /sync/push HTTP/1.1\r\nX-Note: a\u{0}b\r\n\r\n", status: 400),
        Hostile(name: "delete character in a value", bytes: "POST /sync/push HTTP/1.1\r\nX-Note: a\u{7F}b\r\n\r\n", status: 400),
    ]

    @Test(arguments: hostile)
    func hostileRequestsAreRefusedWithTheirStatus(_ hostile: Hostile) {
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        parser.receive(Array(hostile.bytes.utf8))
        guard case .refuse(let refusal) = parser.next() else {
            Issue.record("not refused")
            return
        }
        #expect(refusal.status == hostile.status)
        // A refusal is final: nothing more is read from the connection.
        parser.receive(Array(Self.pull.utf8))
        #expect(parser.next() == .refuse(refusal))
    }

    static let pull = "POST /sync/pull HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\nhello"

    @Test func aValidRequestIsFramedWithItsHeadersAndBody() {
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        parser.receive(Array("POST /sync/pull?x=1 HTTP/1.1\r\nX-Token:  a b \t\r\nx-token: c\r\nContent-Length: 5\r\n\r\nhello".utf8))
        let expected = HTTPRequest(
            method: "POST", target: "/sync/pull?x=1", headers: ["x-token": "a b, c", "content-length": "5"], body: Data("hello".utf8),
            keepAlive: true)
        #expect(parser.next() == .request(expected))
        #expect(parser.next() == .needMoreBytes)
    }

    @Test func repeatedEqualContentLengthsAreOneLength() {
        for head in ["Content-Length: 5\r\nContent-Length: 5", "Content-Length: 5, 5", "Content-Length: 005"] {
            var parser = HTTPRequestParser(maximumBodySize: 1024)
            parser.receive(Array("POST /sync/pull HTTP/1.1\r\n\(head)\r\n\r\nhelloPOST".utf8))
            guard case .request(let request) = parser.next() else {
                Issue.record("\(head) was not taken")
                continue
            }
            #expect(request.body == Data("hello".utf8))
        }
    }

    @Test func aRequestWithoutContentLengthHasNoBody() {
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        parser.receive(Array("GET /sync/pull HTTP/1.1\r\n\r\n".utf8))
        guard case .request(let request) = parser.next() else {
            Issue.record("not framed")
            return
        }
        #expect(request.method == "GET" && request.body.isEmpty)
    }

    @Test func aBodyAtTheLimitIsTakenAndOneByteMoreRefused() {
        var parser = HTTPRequestParser(maximumBodySize: 4)
        parser.receive(Array("POST /sync/pull HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd".utf8))
        #expect(parser.next() == .request(HTTPRequest(method: "POST", target: "/sync/pull", headers: ["content-length": "4"], body: Data("abcd".utf8), keepAlive: true)))
        parser.receive(Array("POST /sync/pull HTTP/1.1\r\nContent-Length: 5\r\n\r\n".utf8))
        #expect(parser.next() == .refuse(HTTPRefusal(413, "the request's body is 5 bytes, over the server's 4")))
    }

    @Test func aHeadWithoutItsBlankLineWaitsUntilItIsOverTheLimit() {
        var parser = HTTPRequestParser(maximumBodySize: 1024, maximumHeadSize: 64)
        // Lines ended by LF alone never end the head.
        let head = Array("POST /sync/pull HTTP/1.1\nContent-Length: 0\n\n".utf8)
        parser.receive(head)
        #expect(parser.next() == .needMoreBytes)
        parser.receive(Array(repeating: UInt8(ascii: "\n"), count: 63 - head.count))
        #expect(parser.next() == .needMoreBytes)
        parser.receive([UInt8(ascii: "\n")])
        guard case .refuse(let refusal) = parser.next() else {
            Issue.record("a head at the limit was not refused")
            return
        }
        #expect(refusal.status == 431)
    }

    @Test func aHeadOverTheDefaultMebibyteIsRefused() {
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        parser.receive(Array("POST /sync/pull HTTP/1.1\r\nX-Padding: ".utf8))
        parser.receive(Array(repeating: UInt8(ascii: "a"), count: 1 << 20))
        #expect(parser.next() == .refuse(HTTPRefusal(431, "the request's head is over the server's 1048576 bytes")))
    }

    @Test func aCompleteHeadOverTheLimitIsRefusedToo() {
        let request = Array("POST /sync/pull HTTP/1.1\r\nX-Padding: aaaaaaaaaaaaaaaaaaaa\r\n\r\n".utf8)
        var atLimit = HTTPRequestParser(maximumBodySize: 1024, maximumHeadSize: request.count)
        atLimit.receive(request)
        guard case .request = atLimit.next() else {
            Issue.record("a head at the limit was refused")
            return
        }
        var over = HTTPRequestParser(maximumBodySize: 1024, maximumHeadSize: request.count - 1)
        over.receive(request)
        guard case .refuse(let refusal) = over.next() else {
            Issue.record("a head over the limit was taken")
            return
        }
        #expect(refusal.status == 431)
    }

    @Test func pipelinedRequestsComeOneAfterAnother() {
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        parser.receive(Array((Self.pull + Self.pull + "POST /sync/push HTTP/1.1\r\nConnection: close\r\n\r\nPOST /sync/pu").utf8))
        for _ in 0..<2 {
            guard case .request(let request) = parser.next() else {
                Issue.record("a pipelined request was lost")
                return
            }
            #expect(request.target == "/sync/pull" && request.body == Data("hello".utf8) && request.keepAlive)
        }
        guard case .request(let last) = parser.next() else {
            Issue.record("the third request was lost")
            return
        }
        #expect(last.target == "/sync/push" && last.body.isEmpty && !last.keepAlive)
        #expect(parser.next() == .needMoreBytes)
        parser.receive(Array("ll HTTP/1.1\r\n\r\n".utf8))
        guard case .request(let fourth) = parser.next() else {
            Issue.record("the request split across reads was lost")
            return
        }
        #expect(fourth.target == "/sync/pull")
    }

    @Test func keepAliveFollowsTheVersionAndTheConnectionHeader() {
        let cases: [(head: String, keepAlive: Bool)] = [
            ("HTTP/1.1", true), ("HTTP/1.1\r\nConnection: close", false), ("HTTP/1.1\r\nConnection: Upgrade, Close", false),
            ("HTTP/1.0", false), ("HTTP/1.0\r\nConnection: keep-alive", true),
        ]
        for (head, keepAlive) in cases {
            var parser = HTTPRequestParser(maximumBodySize: 1024)
            parser.receive(Array("POST /sync/pull \(head)\r\n\r\n".utf8))
            guard case .request(let request) = parser.next() else {
                Issue.record("\(head) was not framed")
                continue
            }
            #expect(request.keepAlive == keepAlive, "\(head)")
        }
    }

    /// Bytes of two pipelined requests, and of a refused one after them.
    static let stream = Array(
        (pull + "POST /sync/push HTTP/1.1\r\nContent-Length: 2, 2\r\nContent-Encoding: gzip\r\n\r\n{}"
            + "POST /sync/push HTTP/1.1\r\nContent-Length: -2\r\n\r\n{}").utf8)

    @Test(arguments: 0...stream.count)
    func readsSplitAtAnyByteGiveTheSameDecisions(_ offset: Int) {
        var whole = HTTPRequestParser(maximumBodySize: 1024)
        whole.receive(Self.stream)
        var reads = [Self.stream[..<offset], Self.stream[offset...]]
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        for _ in 0..<3 {
            var decision = parser.next()
            while decision == .needMoreBytes, !reads.isEmpty {
                parser.receive(reads.removeFirst())
                decision = parser.next()
            }
            #expect(decision == whole.next())
        }
    }

    @Test func aRequestFedOneByteAtATimeIsFramedOnItsLastByte() {
        let bytes = Array(Self.pull.utf8)
        var parser = HTTPRequestParser(maximumBodySize: 1024)
        for byte in bytes.dropLast() {
            parser.receive([byte])
            #expect(parser.next() == .needMoreBytes)
        }
        parser.receive([bytes.last!])
        guard case .request(let request) = parser.next() else {
            Issue.record("the request was not framed")
            return
        }
        #expect(request.body == Data("hello".utf8))
    }
}
