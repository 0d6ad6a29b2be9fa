import CZlib
import Foundation

/// gzip for sync's HTTP bodies (`Content-Encoding: gzip`), through zlib: pages of rows are
/// repetitive JSON, and shrink several times over.
enum Gzip {
    /// Bodies smaller than this go as they are: compressing them saves nothing worth the time.
    static let threshold = 1024

    /// `data` in gzip form, at zlib's fastest level.
    static func compress(_ data: Data) throws -> Data {
        var stream = z_stream()
        guard deflateInit2_(&stream, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw SyncError(.transportFailed, "zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        var output = Data(count: Int(deflateBound(&stream, uLong(data.count))) + 32)
        let written: Int = try data.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(out.count)
                guard deflate(&stream, Z_FINISH) == Z_STREAM_END else { throw SyncError(.transportFailed, "zlib could not compress a body") }
                return out.count - Int(stream.avail_out)
            }
        }
        output.count = written
        return output
    }

    /// The data `gzipped` holds, refusing more than `limit` bytes (a small body that inflates to
    /// gigabytes is refused, not read).
    static func decompress(_ gzipped: Data, limit: Int) throws -> Data {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw SyncError(.malformedMessage, "zlib could not start decompressing")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        try gzipped.withUnsafeBytes { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(input.count)
            var status = Z_OK
            while status != Z_STREAM_END {
                status = chunk.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                guard status == Z_OK || status == Z_STREAM_END else {
                    throw SyncError(.malformedMessage, "a gzip body is corrupt (zlib status \(status))")
                }
                output.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                guard output.count <= limit else { throw SyncError(.malformedMessage, "a gzip body inflates to more than \(limit) bytes") }
                if status == Z_OK, stream.avail_in == 0, stream.avail_out != 0 {
                    throw SyncError(.malformedMessage, "a gzip body ends early")
                }
            }
        }
        return output
    }

    /// Whether `data` starts as gzip does.
    static func isGzip(_ data: Data) -> Bool {
        data.count >= 2 && data[data.startIndex] == 0x1f && data[data.startIndex + 1] == 0x8b
    }
}
