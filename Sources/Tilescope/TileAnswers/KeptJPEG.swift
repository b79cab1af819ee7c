import Imaging

/// A tile or preview whose final answer is kept as JPEG (its encoding came out no smaller), and where its
/// JPEG XL goes.
struct KeptJPEG: Sendable {
    /// The kept JPEG (`.huffman.jpeg`) and its ETag.
    let path: String, etag: TileETag
    /// Its JPEG XL, kept beside once made.
    let jxlPath: String
    /// The stored JPEG both are made from.
    let storedPath: String
    /// For the log: `12/3_4`, `preview`.
    let name: String

    /// The JPEG XL's ETag: other bytes, another tag.
    var jxlETag: TileETag { etag.with(.keptJPEGXL) }

    /// The stored tile with optimized Huffman tables (never more bytes); the stored tile itself if libjpeg
    /// refuses it (a damaged file: the `.jpeg` URL serves it as it is too, and a viewer decodes what it can).
    static func optimized(_ jpeg: [UInt8], tile: String) -> [UInt8] {
        do {
            return try OptimizedJPEG.bytes(jpeg)
        } catch {
            Log.info("the stored tile \(tile) cannot be re-encoded, kept as it is: \(error)")
            return jpeg
        }
    }
}
