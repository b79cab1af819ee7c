import Foundation
import HTTPServer

/// One line per finished request on stdout, in common log format or as JSON lines.
/// Each line goes out in a single `write`, so lines from different threads never mix.
public struct AccessLog: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        /// `host - - [time] "request line" status bytes`, as Apache and nginx write it.
        case common
        /// One JSON object per line, for log shippers.
        case json
    }

    public var format: Format
    /// Where lines go; stdout unless a test says otherwise.
    public var descriptor: Int32 = 1

    public init(format: Format, descriptor: Int32 = 1) {
        self.format = format
        self.descriptor = descriptor
    }

    public func log(_ exchange: CompletedExchange, route: String, at time: timespec = AccessLog.now()) {
        var bytes = Array(line(exchange, route: route, at: time).utf8)
        bytes.append(10)
        _ = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
    }

    public func line(_ exchange: CompletedExchange, route: String, at time: timespec) -> String {
        switch format {
        case .common: return common(exchange, time)
        case .json: return json(exchange, route: route, time)
        }
    }

    public static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time
    }

    // MARK: - Formats

    private func common(_ exchange: CompletedExchange, _ time: timespec) -> String {
        let request = exchange.request
        let line = "\(request.method) \(Self.target(request)) HTTP/1.1"
        let bytes = exchange.bytesSent > 0 ? String(exchange.bytesSent) : "-"
        let host = request.clientAddress.isEmpty ? "-" : request.clientAddress
        return "\(host) - - [\(Self.timestamp(time, "%d/%b/%Y:%H:%M:%S +0000"))] \"\(Self.quoted(line))\" \(exchange.status) \(bytes)"
    }

    private func json(_ exchange: CompletedExchange, route: String, _ time: timespec) -> String {
        let request = exchange.request
        let millis = String(format: "%03d", Int(time.tv_nsec / 1_000_000))
        var fields = [
            ("time", Self.string(Self.timestamp(time, "%Y-%m-%dT%H:%M:%S") + ".\(millis)Z")),
            ("remote", Self.string(request.clientAddress)),
            ("method", Self.string(request.method)),
            ("path", Self.string(request.rawPath)),
        ]
        let query = Self.queryString(request.query)
        if !query.isEmpty { fields.append(("query", Self.string(query))) }
        fields += [
            ("route", Self.string(route)),
            ("status", String(exchange.status)),
            ("bytes", String(exchange.bytesSent)),
            ("duration_ms", String(format: "%.3f", exchange.seconds * 1000)),
            ("completed", exchange.completedNormally ? "true" : "false"),
        ]
        if let agent = request.header("user-agent") { fields.append(("user_agent", Self.string(String(agent.prefix(512))))) }
        if let referer = request.header("referer") { fields.append(("referer", Self.string(String(referer.prefix(512))))) }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    // MARK: - Pieces

    /// The path as sent, with the query re-encoded from its decoded arguments (libmicrohttpd
    /// keeps only those): same arguments, keys in sorted order.
    static func target(_ request: Request) -> String {
        let query = queryString(request.query)
        return query.isEmpty ? request.rawPath : request.rawPath + "?" + query
    }

    static func queryString(_ query: [String: String]) -> String {
        query.keys.sorted().map { key in
            let value = query[key]!
            return value.isEmpty ? encode(key) : encode(key) + "=" + encode(value)
        }.joined(separator: "&")
    }

    private static let unreserved = CharacterSet(charactersIn:
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// Escapes `"`, `\` and control bytes as `\xHH`, as Apache does, so a request line
    /// cannot break the log's quoting or forge a second line.
    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            if byte == 34 || byte == 92 || byte < 32 || byte == 127 {
                out += Array(String(format: "\\x%02x", byte).utf8)
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 32 || scalar.value == 127 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private static func timestamp(_ time: timespec, _ pattern: String) -> String {
        var seconds = time.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
