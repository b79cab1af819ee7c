/// One HTTP request as the handler sees it: the path still percent-encoded as it came
/// over the wire, its segments decoded one by one, query arguments decoded, headers
/// with lower-cased names, and the whole (bounded) body.
public struct Request: Sendable {
    public var method: String
    /// The path exactly as sent, without the query string.
    public var rawPath: String
    /// `rawPath` split on "/" and then percent-decoded, so an encoded slash stays inside
    /// its segment instead of creating a new one. Nil when an escape is malformed.
    public var pathSegments: [String]?
    public var query: QueryArguments
    public var headers: [String: String]
    public var body: [UInt8]
    public var client: ClientAddress
    /// The leading part of the path as sent that the application took off before routing (a prefix carrying
    /// a credential, say), so that the URLs it writes back can keep it; empty when it took off none.
    public var mountPath = ""
    /// The client's IP address as text (`-` when unknown), printed on each use.
    public var clientAddress: String { client.text }

    public init(
        method: String, rawPath: String, query: [String: String] = [:],
        headers: [String: String] = [:], body: [UInt8] = [], clientAddress: String = ""
    ) {
        self.init(method: method, rawPath: rawPath, query: QueryArguments(query), headers: headers, body: body,
                  client: ClientAddress(clientAddress))
    }

    public init(
        method: String, rawPath: String, query: QueryArguments, headers: [String: String], body: [UInt8] = [],
        client: ClientAddress
    ) {
        self.method = method
        self.rawPath = Self.originForm(rawPath)
        self.pathSegments = PercentDecoding.segments(of: self.rawPath)
        self.query = query
        self.headers = headers
        self.body = body
        self.client = client
    }

    /// The path of a request target: `http://host:8080/a/b` (absolute form, which RFC 9112 3.2.2
    /// requires servers to accept) is `/a/b`, `http://host` is `/`; other targets are kept as sent.
    static func originForm(_ target: String) -> String {
        let bytes = target.utf8
        guard let first = bytes.first, first != UInt8(ascii: "/"), let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              target[target.startIndex..<colon].lowercased() == "http" || target[target.startIndex..<colon].lowercased() == "https",
              target[colon...].hasPrefix("://") else { return target }
        let authority = target[target.index(colon, offsetBy: 3)...]
        guard let slash = authority.firstIndex(of: "/") else { return "/" }
        return String(authority[slash...])
    }

    /// A header by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers[ASCII.lowercased(name)]
    }

    public var isHead: Bool { method == "HEAD" }
}
