import CZlib
import Foundation
import HTTPServer
import Synchronization

/// The browser client's text files (modules, stylesheet, pages) compressed once per version of each file and kept
/// in memory, for `Content-Encoding: deflate`. On issue 44's slow connection A (1.6 Mbit/s) the gallery page's 31
/// modules, 148 KB as they are, took most of a second to arrive; compressed they are about 44 KB
/// (docs/benchmarks.md#on-slow-networks-issue-44-goal-2). The files are few and small: nothing is evicted but an
/// older version of the same file.
final class DeflatedFiles: Sendable {
    private let entries = Mutex<[String: (etag: String, bytes: SharedBytes)]>([:])
    /// Files larger than this are sent as they are: the client's largest is 22 KB.
    static let largest = 4 << 20

    /// The file's bytes compressed, for the version `etag` names; nil if it cannot be read or would not shrink.
    func bytes(at path: String, etag: String) -> SharedBytes? {
        if let kept = entries.withLock({ $0[path] }), kept.etag == etag { return kept.bytes }
        guard let plain = FileManager.default.contents(atPath: path), plain.count <= Self.largest,
              let compressed = Self.deflate([UInt8](plain)), compressed.count < plain.count else { return nil }
        let bytes = SharedBytes(copying: compressed)
        entries.withLock { $0[path] = (etag, bytes) }
        return bytes
    }

    /// The zlib stream (RFC 1950) of `input`, which is what HTTP's `deflate` coding names (RFC 9110, 8.4.1.2).
    static func deflate(_ input: [UInt8]) -> [UInt8]? {
        var length = compressBound(uLong(input.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                compress2(target.baseAddress, &length, source.baseAddress, uLong(input.count), Z_BEST_COMPRESSION)
            }
        }
        guard status == Z_OK else { return nil }
        return Array(output.prefix(Int(length)))
    }

    /// True if the request's `Accept-Encoding` takes `deflate` (listed, or `*`, without `q=0`).
    static func accepted(by request: Request) -> Bool {
        guard let header = request.header("accept-encoding") else { return false }
        var wildcard = false
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first else { continue }
            let refused = parts.dropFirst().contains { $0.replacingOccurrences(of: " ", with: "").hasPrefix("q=0")
                && Double($0.split(separator: "=").last ?? "") == 0 }
            if coding == "deflate" { return !refused }
            if coding == "*" { wildcard = !refused }
        }
        return wildcard
    }
}
