import Foundation
import HTTPServer
import Synchronization

/// One line per finished request on stdout, in common log format or as JSON lines.
/// This formats the lines; `AccessLogWriter` writes them, off the poll threads.
/// Lines are built as bytes (no `String(format:)`, no Foundation encoders): this runs
/// after every tile.
public struct AccessLog: Sendable {
    public enum Format: String, Sendable, CaseIterable {
        /// `host - - [time] "request line" status bytes`, as Apache and nginx write it.
        case common
        /// One JSON object per line, for log shippers.
        case json
    }

    public var format: Format
    /// Where lines go; stdout unless a test says otherwise.
    public var descriptor: Int32

    public init(format: Format, descriptor: Int32 = 1) {
        self.format = format
        self.descriptor = descriptor
    }

    /// The line for `exchange` as bytes, without its newline (the writer adds it).
    func lineBytes(_ exchange: CompletedExchange, route: String, at time: timespec = AccessLog.now()) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        switch format {
        case .common: Self.common(exchange, time, into: &out)
        case .json: Self.json(exchange, route: route, time, into: &out)
        }
        return out
    }

    public func line(_ exchange: CompletedExchange, route: String, at time: timespec) -> String {
        String(decoding: lineBytes(exchange, route: route, at: time), as: UTF8.self)
    }

    public static func now() -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return time
    }

    // MARK: - Formats

    private static func common(_ exchange: CompletedExchange, _ time: timespec, into out: inout [UInt8]) {
        let request = exchange.request
        let client = request.clientAddress  // printed on each read
        out += client.isEmpty ? "-".utf8 : client.utf8
        out += " - - [".utf8
        out += Timestamps.shared.common(time.tv_sec)
        out += "] \"".utf8
        escapeQuoted(request.method, into: &out)
        out.append(32)
        escapeQuoted(SignedToken.redacted(request.rawPath), into: &out)
        if !request.query.isEmpty {
            out.append(63)  // ?
            var query: [UInt8] = []
            appendQuery(request.query, into: &query)
            out += query  // percent-encoded: nothing left to escape
        }
        out += " HTTP/1.1\" ".utf8
        out += String(exchange.status).utf8
        out.append(32)
        out += exchange.bytesSent > 0 ? String(exchange.bytesSent).utf8 : "-".utf8
    }

    private static func json(_ exchange: CompletedExchange, route: String, _ time: timespec, into out: inout [UInt8]) {
        let request = exchange.request
        out += "{\"time\":\"".utf8
        out += Timestamps.shared.iso(time.tv_sec)
        out.append(46)  // .
        appendDigits(Int(time.tv_nsec / 1_000_000), width: 3, into: &out)
        out += "Z\",\"remote\":".utf8
        appendJSONString(request.clientAddress, into: &out)
        out += ",\"method\":".utf8
        appendJSONString(request.method, into: &out)
        out += ",\"path\":".utf8
        appendJSONString(SignedToken.redacted(request.rawPath), into: &out)
        if !request.query.isEmpty {
            out += ",\"query\":\"".utf8
            appendQuery(request.query, into: &out)
            out.append(34)
        }
        out += ",\"route\":".utf8
        appendJSONString(route, into: &out)
        out += ",\"status\":".utf8
        out += String(exchange.status).utf8
        out += ",\"bytes\":".utf8
        out += String(exchange.bytesSent).utf8
        out += ",\"duration_ms\":".utf8
        let micros = Int((max(0, exchange.seconds) * 1e6).rounded())
        out += String(micros / 1000).utf8
        out.append(46)
        appendDigits(micros % 1000, width: 3, into: &out)
        out += ",\"completed\":".utf8
        out += exchange.completedNormally ? "true".utf8 : "false".utf8
        if let agent = request.headers["user-agent"] {
            out += ",\"user_agent\":".utf8
            appendJSONString(String(agent.prefix(512)), into: &out)
        }
        if let referer = request.headers["referer"] {
            out += ",\"referer\":".utf8
            appendJSONString(String(referer.prefix(512)), into: &out)
        }
        out.append(125)  // }
    }

    // MARK: - Pieces

    /// The query re-encoded from its decoded arguments (libmicrohttpd keeps only those):
    /// same arguments, keys in sorted order.
    static func appendQuery(_ query: QueryArguments, into out: inout [UInt8]) {
        for (index, key) in query.keys.sorted().enumerated() {
            if index > 0 { out.append(38) }  // &
            percentEncode(key, into: &out)
            let value = query[key]!
            if !value.isEmpty {
                out.append(61)  // =
                percentEncode(value, into: &out)
            }
        }
    }

    private static let hex: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func percentEncode(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case 48...57, 65...90, 97...122, 45, 46, 95, 126: out.append(byte)  // unreserved
            default: out += [37, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
    }

    /// Escapes `"`, `\` and control bytes as `\xHH`, as Apache does, so a request line
    /// cannot break the log's quoting or forge a second line.
    static func escapeQuoted(_ text: String, into out: inout [UInt8]) {
        for byte in text.utf8 {
            if byte == 34 || byte == 92 || byte < 32 || byte == 127 {
                out += [92, 120, hex[Int(byte >> 4)] | 32, hex[Int(byte & 15)] | 32]  // \xhh, lower case
            } else {
                out.append(byte)
            }
        }
    }

    /// A JSON string literal.
    static func appendJSONString(_ text: String, into out: inout [UInt8]) {
        out.append(34)
        for byte in text.utf8 {
            switch byte {
            case 34: out += [92, 34]
            case 92: out += [92, 92]
            case 10: out += [92, 110]
            case 13: out += [92, 114]
            case 9: out += [92, 116]
            case 0..<32, 127: out += [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(34)
    }

    private static func appendDigits(_ value: Int, width: Int, into out: inout [UInt8]) {
        let digits = Array(String(value).utf8)
        if digits.count < width { out += [UInt8](repeating: 48, count: width - digits.count) }
        out += digits
    }
}

/// The two date texts of the current second, formatted once per second rather than per line.
private final class Timestamps: Sendable {
    static let shared = Timestamps()
    private let cache = Mutex<(second: Int, common: [UInt8], iso: [UInt8])>((-1, [], []))

    func common(_ second: Int) -> [UInt8] { texts(second).common }
    func iso(_ second: Int) -> [UInt8] { texts(second).iso }

    private func texts(_ second: Int) -> (second: Int, common: [UInt8], iso: [UInt8]) {
        cache.withLock { cached in
            if cached.second != second {
                cached = (second, Self.format(second, "%d/%b/%Y:%H:%M:%S +0000"), Self.format(second, "%Y-%m-%dT%H:%M:%S"))
            }
            return cached
        }
    }

    /// UTC, in the C locale's month names (Swift programs do not call setlocale).
    private static func format(_ second: Int, _ pattern: String) -> [UInt8] {
        var seconds = second
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, pattern, &parts)
        return buffer[..<count].map { UInt8(bitPattern: $0) }
    }
}
