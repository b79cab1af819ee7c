@testable import HTTPServer

/// Percent-decoding of paths and query components. Besides not trapping: whatever decodes, encoded
/// again, decodes back to itself; the C-string fast path agrees with the general one; and a path's
/// segments are never more than its slashes.
enum PercentDecodingTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        for plusIsSpace in [false, true] {
            guard let decoded = PercentDecoding.decode(text, plusIsSpace: plusIsSpace) else { continue }
            let encoded = PercentDecoding.encode(decoded)
            FuzzCheck.require(encoded.utf8.allSatisfy { $0 < 0x80 }, "encode left a non-ASCII byte in \(encoded)")
            FuzzCheck.require(PercentDecoding.decode(encoded) == decoded, "decode(encode(\(decoded))) differs")
        }
        if !bytes.contains(0) {
            let viaCString = text.withCString { PercentDecoding.decodeQueryComponent($0) }
            FuzzCheck.require(viaCString == PercentDecoding.decode(text, plusIsSpace: true),
                              "decodeQueryComponent disagrees with decode on \(text.debugDescription)")
        }
        if let segments = PercentDecoding.segments(of: text) {
            let slashes = text.utf8.filter { $0 == UInt8(ascii: "/") }.count
            FuzzCheck.require(segments.count <= slashes, "\(segments.count) segments from \(slashes) slashes")
        }
    }
}
