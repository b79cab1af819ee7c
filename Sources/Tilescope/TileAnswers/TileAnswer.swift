import HTTPServer

/// What a derived-format route answers (`DerivedFormats.answer`): which bytes, of which type, under which
/// ETag and cache lifetime, or the work that makes them. The routes turn it into a response and add
/// nothing of their own but the headers every response gets; every answer varies with `Accept`
/// (`JPEGXLAnswers`).
indirect enum TileAnswer: Sendable {
    enum Bytes: Sendable {
        /// A file kept open by the pyramid files' cache (a made tile or preview, a kept JPEG, its JPEG XL).
        case file(descriptor: Int32, size: Int)
        /// Bytes made for this request (an encoding just written, a stand-in).
        case made([UInt8])
    }

    /// The bytes, with what `Server-Timing` says of them (`tile;desc=stored`, `written` or `interim`).
    case bytes(Bytes, type: String, etag: TileETag, cacheControl: String, timing: String)
    /// The client holds these bytes already: 304.
    case notModified(type: String, etag: TileETag, cacheControl: String)
    /// The answer is made on a render thread, as costly work of about `pixels` (decoded plus encoded:
    /// `TileQuestion.workPixels`) in the client's budget: `soon` for milliseconds of work (a JPEG XL, a stand-in),
    /// else queued (an encoding, 9 ms for WebP).
    case made(soon: Bool, pixels: Int, @Sendable () -> TileAnswer)
    /// Nothing to send: `varies` when the error still depends on `Accept`.
    case failed(APIError, varies: Bool)
}
