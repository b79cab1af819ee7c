import Foundation
import TestSupport

/// One browser for the rating tests: its own cookie jar (the `tilescope_viewer` cookie it was given) and
/// its own client address (a loopback address of its own), so each is a distinct viewer and client.
final class TestViewer: @unchecked Sendable {
    let address: String
    /// The cookie's value as the server set it; nil until a write gave one.
    var cookie: String?
    /// The Set-Cookie header of the last answer, if it had one.
    var lastSetCookie: String?

    init(address: String, cookie: String? = nil) {
        self.address = address
        self.cookie = cookie
    }

    /// The viewer id in the cookie (its first 32 hex digits).
    var id: String? { cookie.map { String($0.prefix(32)) } }

    func rate(_ port: Int, _ id: String, _ value: Int, headers: [String: String] = [:]) throws -> RawHTTP.Reply {
        try send(port, "PUT", "/api/images/\(id)/rating", headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                 body: Array(#"{"rating": \#(value)}"#.utf8))
    }

    func get(_ port: Int, _ path: String) throws -> RawHTTP.Reply {
        try send(port, "GET", path)
    }

    func send(_ port: Int, _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> RawHTTP.Reply {
        var headers = headers
        if let cookie { headers["Cookie"] = "theme=dark; tilescope_viewer=\(cookie)" }
        let reply = try RawHTTP(port: port, from: address).send(method, path, headers: headers, body: body)
        lastSetCookie = reply.header("set-cookie")
        if let set = lastSetCookie, set.hasPrefix("tilescope_viewer=") {
            cookie = String(set.dropFirst("tilescope_viewer=".count).prefix { $0 != ";" })
        }
        return reply
    }
}
