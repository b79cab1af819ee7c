import Foundation

/// `tilescope health`: asks the server on this machine for `/readyz` and exits 0 when it
/// answers 200, 1 otherwise. The container's HEALTHCHECK, with no curl in the slim image.
public enum HealthProbe {
    public struct Target: Configuration, Equatable, Sendable {
        public var host = "127.0.0.1"
        public var port = 8080
        public var path = "/readyz"
        public var timeoutSeconds = 3

        public init() {}
    }

    public static let settings: [Setting<Target>] = [
        Setting("--port", env: "TILESCOPE_PORT", default: \.port, "port the server listens on") {
            $0.port = try SettingValue.integer($1, "port", in: 1...65535)
        },
        Setting("--host", env: "TILESCOPE_HOST", default: \.host, "address to ask (0.0.0.0 means this machine)") {
            $0.host = $1 == "0.0.0.0" ? "127.0.0.1" : $1
        },
        Setting("--path", env: nil, default: \.path, "path to fetch (/healthz for liveness)") { target, value in
            guard value.hasPrefix("/"), !value.contains(where: { $0 == " " || $0 == "\r" || $0 == "\n" }) else {
                throw UsageError("path must start with / and contain no spaces")
            }
            target.path = value
        },
        Setting("--timeout", env: nil, default: \.timeoutSeconds, "seconds to wait for the answer") {
            $0.timeoutSeconds = try SettingValue.integer($1, "timeout", in: 1...60)
        },
    ]

    public static func main(_ arguments: [String], environment: [String: String]) throws -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print("Usage: tilescope health [options]\n\nOptions (flag, environment variable, default):\n"
                  + SettingsParser.help(settings))
            return 0
        }
        var target = Target()
        var positional: [String] = []
        try SettingsParser.parse(arguments, environment: environment, settings: settings, into: &target,
                                 positional: &positional)
        guard positional.isEmpty else { throw UsageError("unexpected argument '\(positional[0])'") }
        switch probe(target) {
        case .success(let status) where status == 200:
            return 0
        case .success(let status):
            Log.error("\(target.path) answered \(status)")
            return 1
        case .failure(let reason):
            Log.error("\(target.host):\(target.port)\(target.path): \(reason.message)")
            return 1
        }
    }

    public struct Failure: Error { public var message: String }

    /// The status code the server answered with.
    public static func probe(_ target: Target) -> Result<Int, Failure> {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return .failure(Failure(message: "no socket: \(String(cString: strerror(errno)))")) }
        defer { close(socket) }
        var timeout = timeval(tv_sec: target.timeoutSeconds, tv_usec: 0)
        // On Linux the send timeout also bounds connect().
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(target.port).bigEndian
        guard inet_pton(AF_INET, target.host, &address.sin_addr) == 1 else {
            return .failure(Failure(message: "'\(target.host)' is not an IPv4 address"))
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return .failure(Failure(message: "cannot connect: \(String(cString: strerror(errno)))")) }
        let request = Array("GET \(target.path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            return .failure(Failure(message: "cannot send: \(String(cString: strerror(errno)))"))
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while !received.contains(10) && received.count < 4096 {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return statusCode(of: received).map { .success($0) }
            ?? .failure(Failure(message: received.isEmpty ? "no answer" : "not an HTTP answer"))
    }

    /// The code of an `HTTP/1.x NNN ...` status line.
    static func statusCode(of bytes: [UInt8]) -> Int? {
        let line = String(decoding: bytes.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3 else { return nil }
        return Int(parts[1])
    }
}
