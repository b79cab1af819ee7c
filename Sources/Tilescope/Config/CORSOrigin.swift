/// What `--cors-origin` accepts: `*`, or one origin (`scheme://host[:port]`, RFC 6454) made only of the
/// characters a host and port can have. Anything else (a path, a list, a space, CR or LF) would make
/// the header malformed or let the value inject another header, so it is refused at start.
enum CORSOrigin {
    static func isValid(_ value: String) -> Bool {
        if value == "*" { return true }
        let bytes = Array(value.utf8)
        let scheme: Int
        if bytes.starts(with: Array("https://".utf8)) {
            scheme = 8
        } else if bytes.starts(with: Array("http://".utf8)) {
            scheme = 7
        } else {
            return false
        }
        let host = bytes[scheme...]
        return !host.isEmpty && host.count <= 255 && host.first != UInt8(ascii: ":") && host.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
        }
    }
}
