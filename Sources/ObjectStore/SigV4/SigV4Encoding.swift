/// SigV4's URI encoding: every byte of the UTF-8 text except the unreserved characters
/// (A-Z a-z 0-9 - _ . ~) becomes %XX with uppercase hex. Signer and client use this one function
/// for the path and query they send, so what is signed is exactly what goes on the wire.
public enum SigV4Encoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes `text`; `keepSlash` leaves `/` as it is (object key paths: S3 encodes them once,
    /// with their slashes; query names and values encode `/` too).
    public static func uriEncode(_ text: String, keepSlash: Bool = false) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0f)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes %XX escapes (and nothing else: `+` stays `+`, as SigV4 wants); a `%` not followed by two
    /// hex digits is kept as it is. Invalid UTF-8 after decoding is repaired, never a crash.
    public static func percentDecode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return text }
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let decoded = Hex.decode(String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self)) {
                out.append(decoded[0])
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 dot-segment removal plus empty-segment removal, as SigV4 does for every service but S3
    /// (S3 keys may hold `//` and `..`: they are signed as they are). A trailing slash is kept.
    public static func normalizePath(_ path: String) -> String {
        var segments: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." { if !segments.isEmpty { segments.removeLast() }; continue }
            segments.append(segment)
        }
        var normalized = "/" + segments.joined(separator: "/")
        if path.hasSuffix("/") && normalized != "/" { normalized += "/" }
        return normalized
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
