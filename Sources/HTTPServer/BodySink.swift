/// Where a request body goes when the handler streams it instead of having it buffered in
/// `Request.body`: chunk by chunk as it arrives, so a body of any size costs a chunk of memory.
///
/// The server calls `write` for each chunk in order, then exactly one of `finish` (the whole body
/// arrived) or `abort` (it never will: too large, refused by `write`, or the client went away).
/// All calls for one request come one at a time, on libmicrohttpd's threads: keep them quick
/// (appending to a file is; decoding an image is not: do that in the `.later` work of `finish`).
public protocol BodySink: AnyObject, Sendable {
    /// The most bytes the body may have. A larger `Content-Length` is answered with 413 before
    /// `100 Continue` goes out; a body that grows past it while streaming (chunked) gets 413 then.
    var maxBytes: Int { get }

    /// The next chunk of the body. Returns nil to go on, or a response that ends the request
    /// (the rest of the body is not read, `abort` follows and the connection closes).
    func write(_ chunk: UnsafeRawBufferPointer) -> Response?

    /// The whole body has arrived: the reply to the request.
    func finish(_ request: Request) -> Reply

    /// The body will not be completed: drop whatever was kept of it.
    func abort()
}

/// What a handler wants done with a request's body, decided from the request line and headers alone.
public enum BodyHandling: Sendable {
    /// Read it into `Request.body`, up to `ServerOptions.maxBodyBytes` (413 beyond), then `handle`.
    case buffer
    /// Hand it to the sink chunk by chunk; the sink's `finish` replies instead of `handle`.
    case stream(any BodySink)
    /// Answer with this response without reading the body (a request with a body then ends
    /// with the connection closed, as nothing else is safe with unread bytes on it).
    case refuse(Response)
}
