import CMicroHTTPD
import CHTTPShims

/// Reads a request's line, headers and query arguments out of a libmicrohttpd connection.
enum ConnectionReader {
    static func request(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?) -> Request {
        let rawPath = url.map { String(cString: $0) } ?? "/"
        // Sized once from libmicrohttpd's counts (a walk of a short list without callbacks): a browser's ten
        // headers or a viewport's seven arguments would otherwise regrow the headers' dictionary and the
        // arguments' list several times. The dictionary is made at that size, not grown with
        // `reserveCapacity`: that one is the standard library's unspecialised code, which looks up the
        // dictionary's type at run time (about 500 instructions).
        let headerCount = MHD_get_connection_values(connection, .HEADER_KIND, nil, nil)
        let argumentCount = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil)
        var collector = Collector(headers: Dictionary(minimumCapacity: Int(max(0, headerCount))),
                                  query: QueryArguments(capacity: Int(max(0, argumentCount))))
        withUnsafeMutablePointer(to: &collector) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, headerIterator, pointer)
            _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, queryIterator, pointer)
        }
        var request = Request(method: method.map { String(cString: $0) } ?? "GET", rawPath: rawPath,
                              query: collector.query, headers: collector.headers,
                              client: ClientAddress(connection: connection))
        if collector.malformedQuery { request.pathSegments = nil }
        return request
    }

    struct Collector {
        var headers: [String: String]
        var query: QueryArguments
        var malformedQuery = false
    }
}

private func headerIterator(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let context, let key else { return .YES }
    let collector = context.assumingMemoryBound(to: ConnectionReader.Collector.self)
    let name = ASCII.lowercased(cString: key)
    let text = value.map { String(cString: $0) } ?? ""
    // Repeated headers are joined as RFC 9110 allows for list-valued fields.
    if let existing = collector.pointee.headers[name] {
        collector.pointee.headers[name] = existing + ", " + text
    } else {
        collector.pointee.headers[name] = text
    }
    return .YES
}

private func queryIterator(
    _ context: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind, _ key: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let context, let key else { return .YES }
    let collector = context.assumingMemoryBound(to: ConnectionReader.Collector.self)
    guard let name = PercentDecoding.decodeQueryComponent(key),
          let text = value.map(PercentDecoding.decodeQueryComponent) ?? ""
    else {
        collector.pointee.malformedQuery = true
        return .YES
    }
    collector.pointee.query.set(name, text)
    return .YES
}
