/// A request's head, read from its bytes: the request line and the header fields, without the
/// blank line that ends them. It is strict where leniency lets two readers frame the same bytes
/// differently (RFC 9112): a bare CR or LF, a folded line, a space before a field's colon or a
/// control character in a value are refused, not repaired.
struct HTTPHead: Equatable {
    var method: String
    var target: String
    /// The minor version of HTTP/1.x: 0 or 1.
    var minorVersion: Int
    /// The header fields in the order sent, names lowercased.
    var fields: [Field]

    struct Field: Equatable {
        var name: String
        var value: String
    }

    /// Reads `bytes`, the head up to its blank line.
    /// - Throws: a refusal with 400 for a malformed head, 505 for another HTTP version than 1.x.
    init(_ bytes: ArraySlice<UInt8>) throws(HTTPRefusal) {
        guard var lines = Self.lines(of: bytes) else { throw HTTPRefusal(400, "the request's head has a CR or LF outside a CRLF") }
        let requestLine = lines.removeFirst().split(separator: .space, omittingEmptySubsequences: false)
        guard requestLine.count == 3, let method = requestLine.first, !method.isEmpty, method.allSatisfy(Self.isTokenByte) else {
            throw HTTPRefusal(400, "the request line is not `METHOD TARGET HTTP/1.1`")
        }
        let target = requestLine[1]
        guard !target.isEmpty, target.allSatisfy({ $0 > .space && $0 < 0x7F }) else {
            throw HTTPRefusal(400, "the request's target is empty or has a character a URL cannot")
        }
        self.method = String(decoding: method, as: UTF8.self)
        self.target = String(decoding: target, as: UTF8.self)
        minorVersion = try Self.minorVersion(requestLine[2])
        fields = []
        fields.reserveCapacity(lines.count)
        for line in lines {
            guard let colon = line.firstIndex(of: .colon) else { throw HTTPRefusal(400, "a header line has no colon") }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
                throw HTTPRefusal(400, "a header's name is empty, folded onto the line before, or followed by a space before its colon")
            }
            let rest = line[(colon + 1)...]
            let start = rest.firstIndex { !Self.isBlank($0) } ?? rest.endIndex
            let value = rest[start..<(rest.lastIndex { !Self.isBlank($0) }.map { $0 + 1 } ?? start)]
            guard value.allSatisfy({ $0 == .tab || ($0 >= .space && $0 != 0x7F) }) else {
                throw HTTPRefusal(400, "the \(String(decoding: name, as: UTF8.self)) header's value has a control character")
            }
            fields.append(Field(name: String(decoding: name, as: UTF8.self).lowercased(), value: String(decoding: value, as: UTF8.self)))
        }
    }

    /// The values of the fields named `name` (lowercase), in the order sent.
    func values(of name: String) -> [String] {
        fields.compactMap { $0.name == name ? $0.value : nil }
    }

    /// The fields by name; a field sent more than once has its values joined with `, `, as
    /// RFC 9110 combines a list. Joined once per name: joining as they come copies the text so
    /// far again for each repeat, which a mebibyte of one short field repeated makes seconds.
    var headers: [String: String] {
        var values: [String: [String]] = [:]
        for field in fields { values[field.name, default: []].append(field.value) }
        return values.mapValues { $0.joined(separator: ", ") }
    }

    /// The comma-separated elements of the fields named `name`, without the spaces and tabs
    /// around them, lowercased; empty ones too.
    func listElements(of name: String) -> [String] {
        values(of: name).flatMap { value in
            value.split(separator: ",", omittingEmptySubsequences: false).map { element in
                var element = element.drop { $0 == " " || $0 == "\t" }
                while element.last == " " || element.last == "\t" { element = element.dropLast() }
                return element.lowercased()
            }
        }
    }

    /// The lines of `bytes`, split at CRLF; nil if a CR or LF stands alone.
    private static func lines(of bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>]? {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == .cr, index + 1 < bytes.endIndex, bytes[index + 1] == .lf {
                lines.append(bytes[start..<index])
                index += 2
                start = index
            } else if byte == .cr || byte == .lf {
                return nil
            } else {
                index += 1
            }
        }
        lines.append(bytes[start...])
        return lines
    }

    private static func minorVersion(_ version: ArraySlice<UInt8>) throws(HTTPRefusal) -> Int {
        let text = Array(version)
        guard text.count == 8, text.starts(with: Array("HTTP/".utf8)), text[6] == UInt8(ascii: "."),
            let major = Self.digit(text[5]), let minor = Self.digit(text[7])
        else { throw HTTPRefusal(400, "the request line does not end in an HTTP version, such as HTTP/1.1") }
        guard major == 1 else { throw HTTPRefusal(505, "this server speaks HTTP/1.1, not HTTP/\(major).\(minor)") }
        return minor
    }

    private static func digit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    private static func isBlank(_ byte: UInt8) -> Bool { byte == .space || byte == .tab }

    /// Whether `byte` may be in a method or a field name: RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
            UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
            UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}

extension UInt8 {
    fileprivate static let cr = UInt8(ascii: "\r")
    fileprivate static let lf = UInt8(ascii: "\n")
    fileprivate static let space = UInt8(ascii: " ")
    fileprivate static let tab = UInt8(ascii: "\t")
    fileprivate static let colon = UInt8(ascii: ":")
}
