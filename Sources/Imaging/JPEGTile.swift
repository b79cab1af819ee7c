import CTileDecoder
import Glibc  // free
import ScrollGeometry

/// A stored JPEG tile, decoded with libjpeg-turbo straight into a caller's pixel buffer.
///
/// Why not libvips here: a region of a level is assembled from a dozen to fifty small tiles,
/// and a libvips pipeline per tile (load, crop, join) cost more in locks, caches and
/// per-region bookkeeping than the JPEG decoding itself; decoding each tile's part into one
/// buffer does only the decoding, and of each tile only the rows down to the last one needed.
public enum JPEGTile {
    /// Colour components of the tile at `path`: 1 (grey) or 3 (RGB).
    public static func components(_ path: String) throws -> Int {
        try withError { ts_jpeg_components(path, $0, $1) }
    }

    /// Decodes `rect` (pixels of the tile) into `destination`, rows `stride` bytes apart,
    /// `bands` bytes per pixel.
    public static func decode(_ path: String, rect: PixelRect, into destination: UnsafeMutablePointer<UInt8>,
                              stride: Int, bands: Int) throws {
        _ = try withError {
            ts_jpeg_decode_rect(path, destination, stride, Int32(bands), Int32(rect.x), Int32(rect.y),
                                Int32(rect.width), Int32(rect.height), $0, $1)
        }
    }

    /// A stored tile read into memory once: its components and its pixels come from the same read
    /// (a region's first tile says how many bands the region has, then is decoded into it).
    public final class File {
        public let path: String
        private let data: UnsafeMutablePointer<UInt8>
        private let size: Int

        public init(path: String) throws {
            var size = 0
            var data: UnsafeMutablePointer<UInt8>? = nil
            _ = try JPEGTile.withError { message, count in
                data = ts_jpeg_read_tile(path, &size, message, count)
                return data == nil ? -1 : 0
            }
            self.path = path
            self.data = data!
            self.size = size
        }

        deinit { free(data) }

        /// Colour components: 1 (grey) or 3 (RGB).
        public func components() throws -> Int {
            try JPEGTile.withError { ts_jpeg_components_of(data, size, $0, $1) }
        }

        /// As `JPEGTile.decode`, from the bytes read.
        public func decode(rect: PixelRect, into destination: UnsafeMutablePointer<UInt8>, stride: Int, bands: Int) throws {
            _ = try JPEGTile.withError {
                ts_jpeg_decode_rect_of(data, size, path, destination, stride, Int32(bands), Int32(rect.x), Int32(rect.y),
                                       Int32(rect.width), Int32(rect.height), $0, $1)
            }
        }
    }

    /// Runs a C call of `CTileDecoder` that returns -1 with a message on failure, as a throw.
    static func check(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws {
        _ = try withError(call)
    }

    fileprivate static func withError(_ call: (UnsafeMutablePointer<CChar>, Int) -> Int32) throws -> Int {
        var message = [CChar](repeating: 0, count: 256)
        let result = message.withUnsafeMutableBufferPointer { call($0.baseAddress!, $0.count) }
        guard result >= 0 else {
            throw VipsError(message: message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return Int(result)
    }
}
