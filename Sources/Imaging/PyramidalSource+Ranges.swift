import CVipsShims
import CVips
import Foundation

/// A pyramidal TIFF read by ranges (an object in a bucket, `ByteRanges`), never copied whole: its directories are
/// read where they are, its stored tiles by their offsets and byte counts, and libvips decodes a level through a
/// source whose reads are ranged reads (`ts_source_ranged`), so it fetches only the tiles under a region.
extension PyramidalSource {
    /// The source with its levels, or nil when the object is not a TIFF pyramid (pages or SubIFDs). `name` is for
    /// messages. Only TIFF's kinds: OpenSlide and OpenJPEG read files by name, not through a libvips source, so a
    /// slide is read by tiffload as its pages (as an uploaded `.tif` slide is) and a JPEG 2000 is built.
    public static func probe(ranges: any ByteRanges, name: String, openLevels: Int = defaultOpenLevels,
                             openBytes: Int = defaultOpenBytes) throws -> PyramidalSource? {
        try Vips.start()
        let file = SourceFile(ranges: ranges)
        guard let tiff = try TIFFLayout.read(file) else { return nil }
        let format: Format
        let levels: [SourceLevel]
        if let found = subIFDLevels(tiff) {
            (format, levels) = (.tiffSubIFDs, found)
        } else if let found = pageLevels(tiff) {
            (format, levels) = (.tiffPages, found)
        } else {
            return nil
        }
        return PyramidalSource(path: name, format: format, levels: levels, openCosts: levels.map { tiffOpenCost($0) },
                               micronsPerPixel: micronsPerPixel(tiff.pages[0]), associatedImages: [], file: file,
                               openLevels: openLevels, openBytes: openBytes)
    }

    /// One TIFF level opened for random access from `ranges`, header only.
    static func open(_ load: SourceLevel.Load, ranges: any ByteRanges, name: String) throws -> VImage {
        try Vips.start()
        let (option, value): (String, Int)
        switch load {
        case let .tiffPage(page): (option, value) = ("page", page)
        case let .tiffSubIFD(subIFD): (option, value) = ("subifd", subIFD)
        case .openslide, .jpeg2000: throw VipsError(message: "only a TIFF's levels are read by ranges (\(name))")
        }
        let reader = RangedSourceReader(ranges)
        let context = Unmanaged.passRetained(reader).toOpaque()
        // The source owns the reader from here on: it lets it go when libvips drops the source.
        guard let source = ts_source_ranged(rangedSourceRead, rangedSourceRelease, context,
                                            Int64(clamping: ranges.size)) else {
            throw VipsError.take(or: "libvips cannot make a source of \(name)", source: name)
        }
        defer { g_object_unref(source) }
        return try VipsErrorLedger.attributed(to: name) {
            guard let image = ts_load_level_source("tiffload_source", source, option, Int32(value)) else {
                if let failure = reader.failure { throw failure }
                throw VipsError.take(or: "libvips cannot open \(option) \(value) of the source", source: name)
            }
            return VImage(taking: image)
        }
    }
}

/// What a libvips source's read handler calls: the ranges, and the first error they threw (libvips only hears -1).
final class RangedSourceReader: @unchecked Sendable {
    let ranges: any ByteRanges
    private let lock = NSLock()
    private var firstFailure: (any Error)?

    init(_ ranges: any ByteRanges) { self.ranges = ranges }

    var failure: (any Error)? { lock.withLock { firstFailure } }

    func failed(_ error: any Error) { lock.withLock { if firstFailure == nil { firstFailure = error } } }
}

private let rangedSourceRead: ts_range_read_fn = { context, offset, buffer, length in
    guard let context, let buffer, offset >= 0, length >= 0 else { return -1 }
    let reader = Unmanaged<RangedSourceReader>.fromOpaque(context).takeUnretainedValue()
    do {
        return Int64(try reader.ranges.read(into: buffer, at: UInt64(offset), count: Int(clamping: length)))
    } catch {
        reader.failed(error)
        return -1
    }
}

private let rangedSourceRelease: ts_range_release_fn = { context in
    guard let context else { return }
    Unmanaged<RangedSourceReader>.fromOpaque(context).release()
}
