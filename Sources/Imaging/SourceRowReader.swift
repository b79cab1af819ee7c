import CVipsShims
import CTileDecoder
import CVips
import Foundation

/// A source's rows, top to bottom, as the build saw them (`SourceImage`): what
/// `SourceTileRows` cuts the deepest level's tiles from.
protocol SourceRowReader: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// 1 (grey) or 3 (RGB) bytes a pixel.
    var bands: Int { get }
    /// Reads the next `count` rows into `out` (`width * bands` bytes a row), or drops them if `out` is nil.
    func read(_ count: Int, into out: UnsafeMutablePointer<UInt8>?) throws
}

enum SourceRowReaders {
    /// libjpeg for a grey or RGB JPEG that is upright and has no ICC profile (the common source), libvips
    /// for anything else, converted as `SourceImage` shows it. Why two: libvips's
    /// sequential jpegload keeps hundreds of full-width rows cached whatever is asked of it (measured with
    /// 64-row reads: about 44 MB for a 16384-pixel-wide source, 130 MB for a 49152-pixel one), more than a
    /// server answering tiles meanwhile should hold; libjpeg holds a few rows. Other formats go through
    /// libvips, refused beyond `maxVipsRowBytes` a row.
    static func open(_ source: String, maxVipsRowBytes: Int) throws -> SourceRowReader {
        if SourceSignature.isJPEG(source), try SourceImage.isShownAsStored(VImage.open(source, sequential: true, strict: true)),
           let reader = try JPEGRowReader.open(source) { return reader }
        return try VipsRowReader(source, maxRowBytes: maxVipsRowBytes)
    }
}

/// A JPEG's rows through libjpeg (`ts_jpeg_rows_*`), decoded as libvips decodes them.
final class JPEGRowReader: SourceRowReader {
    let width: Int, height: Int, bands: Int
    private let rows: OpaquePointer
    private var failed = false

    /// nil for a CMYK or YCCK JPEG, which libvips reads (and the build converted).
    /// `scale` 1, 2, 4 or 8 decodes at that fraction (libjpeg's DCT scaling), the size rounded up.
    static func open(_ path: String, scale: Int = 1) throws -> JPEGRowReader? {
        var (width, height, bands): (Int32, Int32, Int32) = (0, 0, -1)
        var error = [CChar](repeating: 0, count: 512)
        guard let rows = ts_jpeg_rows_open(path, Int32(scale), &width, &height, &bands, &error, error.count) else {
            if bands == 0 { return nil }
            throw VipsError(message: String(cString: error))
        }
        return JPEGRowReader(rows, width: Int(width), height: Int(height), bands: Int(bands))
    }

    private init(_ rows: OpaquePointer, width: Int, height: Int, bands: Int) {
        self.rows = rows
        (self.width, self.height, self.bands) = (width, height, bands)
    }

    deinit { ts_jpeg_rows_close(rows) }

    func read(_ count: Int, into out: UnsafeMutablePointer<UInt8>?) throws {
        guard !failed else { throw VipsError(message: "the source could not be read before") }
        var error = [CChar](repeating: 0, count: 512)
        guard ts_jpeg_rows_read(rows, out, Int32(count), &error, error.count) == 0 else {
            failed = true
            throw VipsError(message: String(cString: error))
        }
    }
}

/// Any source libvips reads, opened sequentially and converted as the build converted it (`SourceImage`).
final class VipsRowReader: SourceRowReader {
    let width: Int, height: Int, bands: Int
    private let image: VImage
    /// Reads the source's rows strictly forward (`ts_region_read_rows`): a sequential source refuses a
    /// row it has passed.
    private let region: UnsafeMutablePointer<VipsRegion>
    private var nextLine = 0
    private var scratch: [UInt8] = []

    init(_ source: String, maxRowBytes: Int) throws {
        try Vips.start()
        let image = try SourceImage.open(source, strict: true)
        guard image.width <= maxRowBytes / max(1, image.bands) else {
            throw VipsError(message: "a row of the source would hold more than \(maxRowBytes) bytes")
        }
        guard let region = vips_region_new(image.pointer) else { throw VipsError.take(or: "cannot read the source") }
        self.image = image
        self.region = region
        (width, height, bands) = (image.width, image.height, image.bands)
    }

    deinit { g_object_unref(region) }

    func read(_ count: Int, into out: UnsafeMutablePointer<UInt8>?) throws {
        if out == nil && scratch.count < count * width * bands {
            scratch = [UInt8](repeating: 0, count: count * width * bands)
        }
        let result = scratch.withUnsafeMutableBufferPointer { buffer in
            ts_region_read_rows(region, Int32(nextLine), Int32(count), out ?? buffer.baseAddress)
        }
        guard result == 0 else {
            throw VipsError.take(or: "cannot read rows \(nextLine) to \(nextLine + count) of the source")
        }
        nextLine += count
    }
}
