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
    public var query: [String: String]
    public var headers: [String: String]
    public var body: [UInt8]
    public var clientAddress: String

    public init(
        method: String, rawPath: String, query: [String: String] = [:],
        headers: [String: String] = [:], body: [UInt8] = [], clientAddress: String = ""
    ) {
        self.method = method
        self.rawPath = rawPath
        self.pathSegments = PercentDecoding.segments(of: rawPath)
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }

    /// A header by case-insensitive name.
    public func header(_ name: String) -> String? {
        headers[ASCII.lowercased(name)]
    }

    public var isHead: Bool { method == "HEAD" }
}
