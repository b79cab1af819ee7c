/// Percent-decoding of URL paths and query strings, done by Tilescope rather than by
/// libmicrohttpd so that an encoded "/" can never turn into a path separator.
public enum PercentDecoding {
    /// Splits a raw path on "/" and decodes each segment; nil if any escape is malformed
    /// or the path does not start with "/". "/" gives `[]`, "/a/" gives `["a", ""]`.
    public static func segments(of rawPath: String) -> [String]? {
        // One pass over the bytes, no intermediate array of substrings: this runs on every request.
        var path = rawPath
        return path.withUTF8 { bytes -> [String]? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            if bytes.count == 1 { return [] }
            var result: [String] = []
            result.reserveCapacity(8)
            var start = 1, escaped = false
            for index in 1...bytes.count {
                guard index == bytes.count || bytes[index] == UInt8(ascii: "/") else {
                    if bytes[index] == UInt8(ascii: "%") { escaped = true }
                    continue
                }
                let part = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                if escaped {  // the rare case: decode
                    guard let decoded = decode(part) else { return nil }
                    result.append(decoded)
                } else {
                    result.append(part)
                }
                start = index + 1
                escaped = false
            }
            return result
        }
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusIsSpace`). Nil for a malformed
    /// escape or bytes that are not UTF-8.
    public static func decode<S: StringProtocol>(_ text: S, plusIsSpace: Bool = false) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue)
                else { return nil }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A query string's key or value, as libmicrohttpd hands it over: `decode(_:plusIsSpace: true)`, with a
    /// fast path for the common case of plain ASCII without `%` or `+`, which needs no decoding.
    public static func decodeQueryComponent(_ text: UnsafePointer<CChar>) -> String? {
        var cursor = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        while cursor.pointee != 0 {
            let byte = cursor.pointee
            if byte >= 0x80 || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") {
                return decode(String(cString: text), plusIsSpace: true)
            }
            cursor += 1
        }
        return String(cString: text)
    }

    /// Percent-encodes everything but the RFC 3986 unreserved characters.
    public static func encode(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF")
                result += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return result
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
