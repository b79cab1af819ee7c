/// A request as it goes on the wire: the target is already encoded (path and query), headers are sent
/// in their order and spelling, untouched (they were signed so). `Content-Length` is added for a body.
public struct HTTPClientRequest: Sendable {
    public var method: String
    public var target: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// A body read from a file as it is sent, instead of `body`: a large upload never sits in memory.
    public var bodyFile: HTTPFileBody?

    public init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8] = [],
                bodyFile: HTTPFileBody? = nil) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
    }

    /// Bytes of the body, wherever it comes from.
    var bodyLength: Int { bodyFile?.length ?? body.count }
}

/// An answer, its body read whole (bounded by `HTTPClientSettings.maxBodyBytes`).
public struct HTTPClientResponse: Sendable {
    public let status: Int
    public let headers: [(name: String, value: String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header called `name` (any case).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.name.lowercased() == lowered }?.value
    }
}
