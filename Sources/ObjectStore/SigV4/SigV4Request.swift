/// A request as SigV4 sees it: method, path and query before encoding, headers in order (a name may
/// repeat), and the payload's hash (hex SHA-256 of the body, or `UNSIGNED-PAYLOAD` for S3).
public struct SigV4Request: Sendable {
    public var method: String
    /// The path, not yet encoded (`/bucket/a key`): the signer encodes it by its rules.
    public var path: String
    /// Query parameters, not yet encoded, in any order (a name may repeat).
    public var query: [(name: String, value: String)]
    public var headers: [(name: String, value: String)]
    public var payloadHash: String

    public init(method: String, path: String, query: [(name: String, value: String)] = [],
                headers: [(name: String, value: String)], payloadHash: String) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.payloadHash = payloadHash
    }

    /// The value of the first header called `name` (any case).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }

    /// Replaces every header called `name` (any case) with one of `value`.
    public mutating func setHeader(_ name: String, _ value: String) {
        let lowered = name.lowercased()
        if let index = headers.firstIndex(where: { $0.name.lowercased() == lowered }) {
            headers[index].value = value
            headers = headers.enumerated().filter { $0.offset == index || $0.element.name.lowercased() != lowered }.map(\.element)
        } else {
            headers.append((name, value))
        }
    }
}
