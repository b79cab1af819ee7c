import CVipsShims
import CVips
import Foundation
import Synchronization
import ScrollGeometry

/// A source image that already is a pyramid (a tiled pyramidal TIFF or BigTIFF, by pages or SubIFDs; a slide
/// OpenSlide reads; a JPEG 2000 with resolution levels), read directly: no build, nothing written.
///
/// A region is read from the smallest level still at least as sharp as the output, only where the region is
/// (a crop of the level opened for random access: libvips then decodes only the tiles under it), and scaled to
/// the output size with each output pixel taken from exactly where it lies (`LevelArea`): box means by whole
/// factors, as the levels themselves were made, then bilinear interpolation for what is left, at most a halving
/// (unlike `RegionPixels`' triangle filter it does not widen for a reduction: exact register was chosen over
/// that little antialiasing; an aligned Deep Zoom tile is a plain crop or an exact 2 x 2 mean). Pixels come
/// out as builds show a source (`SourceImage.displayable`): 8-bit sRGB through an embedded ICC profile, alpha
/// laid on white, and grey made three equal bands, so every answer is 8-bit sRGB in three bands.
///
/// Safe to read from several threads at once: the opened levels are shared libvips images (`OpenedLevels`,
/// which bounds how many stay open and what they cost). Each read's pipeline is lazy: its pixels are
/// decoded when the caller encodes or copies the returned image.
public final class PyramidalSource: RegionReading, @unchecked Sendable {
    /// How the file holds its levels.
    public enum Format: String, Sendable {
        /// A TIFF's pages (directories), each tiled level half the one before (or a power-of-two fraction).
        case tiffPages
        /// A TIFF's first page and its SubIFDs (libvips's `tiffsave --subifd`, OME-TIFF).
        case tiffSubIFDs
        /// A slide OpenSlide reads (Aperio SVS, Hamamatsu, MIRAX, Leica, ...), by OpenSlide's levels.
        case openslide
        /// A JPEG 2000 codestream's resolution levels.
        case jpeg2000
    }

    public let path: String
    public let format: Format
    /// Finest first: `levels[0]` is the full resolution; each later one coarser.
    public let levels: [SourceLevel]
    /// Microns per pixel across and down, when the file says so: OpenSlide's `openslide.mpp-x/y`, or a TIFF's
    /// resolution in pixels per centimetre or inch when fine enough to be a measurement (`probe`).
    public let micronsPerPixel: (x: Double, y: Double)?
    /// The slide's associated images (OpenSlide's names: label, macro, thumbnail...); empty for other formats.
    public let associatedImages: [String]

    public var width: Int { levels[0].width }
    public var height: Int { levels[0].height }

    /// Bytes that holding each level open costs, in `levels`' order (`OpenedLevels`).
    let openCosts: [Int]
    private let opened: OpenedLevels
    /// The file probed, held open where some level's tiles can be sent as they are stored (`storedJPEG`).
    private let file: SourceFile?
    var sourceFile: SourceFile? { file }
    /// This opening of the file, unlike any other (the key of its decoded tiles in `DecodedSourceTiles`).
    let identity = PyramidalSource.nextIdentity()

    private static let identities = Mutex<UInt64>(0)
    private static func nextIdentity() -> UInt64 { identities.withLock { $0 += 1; return $0 } }

    /// The ranges the source is read through (an object in a bucket), nil for a local file.
    public var ranges: (any ByteRanges)? { file?.ranges }

    /// Levels kept open at most, by default: a view that zooms touches two or three neighbouring levels.
    public static let defaultOpenLevels = 4
    /// What the open levels of one source may cost at most, by default (the level in use stays open whatever
    /// it costs: a JPEG 2000 of 16,000 tiles costs 190 MB, see `openCost`).
    public static let defaultOpenBytes = 256 << 20

    init(path: String, format: Format, levels: [SourceLevel], openCosts: [Int],
         micronsPerPixel: (x: Double, y: Double)?, associatedImages: [String], file: SourceFile? = nil,
         openLevels: Int, openBytes: Int) {
        precondition(!levels.isEmpty && levels.count == openCosts.count)
        self.path = path
        self.format = format
        self.levels = levels
        self.openCosts = openCosts
        self.micronsPerPixel = micronsPerPixel
        self.associatedImages = associatedImages
        self.file = file
        opened = OpenedLevels(maximumCount: openLevels, maximumBytes: openBytes)
    }

    /// `region` (full-resolution pixels, inside the image) scaled to exactly `size`: 8-bit sRGB, three bands.
    /// From the level's stored JPEG tiles in plain memory where they allow it (`storedTilePixels`), else
    /// through libvips.
    public func read(_ region: PixelRect, size: PixelSize) throws -> VImage {
        if let pixels = try storedTilePixels(region, size: size) { return try pixels.image() }
        return try readThroughLibvips(region, size: size)
    }

    /// `read` through libvips's loader, shrink and affine, whatever the level's tiles are: the reference the
    /// stored tiles' reading is tested against.
    func readThroughLibvips(_ region: PixelRect, size: PixelSize) throws -> VImage {
        guard isInside(region, size: size) else {
            throw VipsError(message: "region \(region) at \(size.width)x\(size.height) is not inside \(width)x\(height)")
        }
        let (index, area) = plan(region, size: size)
        return try area.resampled(try levelImage(index), to: size)
    }

    /// The stored JPEG of the source tile that `read(region, size:)` would give exactly, pixel for pixel (the
    /// read is a plain crop of one whole tile of a level whose tiles are sent as stored): an answer without
    /// decoding or encoding. nil for any other read, or when the tile's bytes are not a JPEG's.
    public func storedJPEG(_ region: PixelRect, size: PixelSize) throws -> [UInt8]? {
        guard let file, region.x >= 0, region.y >= 0, region.width > 0, region.height > 0,
              region.x + region.width <= width, region.y + region.height <= height else { return nil }
        let (index, area) = plan(region, size: size)
        let level = levels[index]
        guard let tiles = level.tiles, let stored = tiles.passthrough, size.width == tiles.width, size.height == tiles.height,
              let (left, top) = area.crop(to: size, levelWidth: level.width, levelHeight: level.height),
              left % tiles.width == 0, top % tiles.height == 0 else { return nil }
        return try stored.jpeg(column: left / tiles.width, row: top / tiles.height, in: file)
    }

    /// The level that answers, the coarsest still as sharp as the output (its downsample at most the region's
    /// size over the output's) that holds the region, and the region on it.
    func plan(_ region: PixelRect, size: PixelSize) -> (level: Int, area: LevelArea) {
        var chosen = 0
        for index in levels.indices.dropFirst() {
            let area = LevelArea(region, on: levels[index], fullWidth: width, fullHeight: height)
            // Coarser levels are no sharper and hold no more: the search stops at the first that fails.
            guard area.isSharpEnough(for: size), area.isHeld(by: levels[index]) else { break }
            chosen = index
        }
        return (chosen, LevelArea(region, on: levels[chosen], fullWidth: width, fullHeight: height))
    }

    /// Level `index` opened and converted as shown, from the open levels or opened now.
    private func levelImage(_ index: Int) throws -> VImage {
        try opened.image(index, cost: openCosts[index]) {
            let load = levels[index].load
            if let ranges = file?.ranges { return try Self.shown(Self.open(load, ranges: ranges, name: path), load: load) }
            return try Self.shown(Self.open(load, path: path), load: load)
        }
    }

    /// The levels open now, least recently used first (for tests and metrics).
    var openLevelIndexes: [Int] { opened.openIndexes }

    /// Opens one level for random access, header only, its errors taken from libvips's buffer as this file's.
    static func open(_ load: SourceLevel.Load, path: String) throws -> VImage {
        try Vips.start()
        let (loader, option, value): (String, String, Int) = switch load {
        case let .tiffPage(page): ("tiffload", "page", page)
        case let .tiffSubIFD(subIFD): ("tiffload", "subifd", subIFD)
        case let .openslide(level): ("openslideload", "level", level)
        case let .jpeg2000(reduction): ("jp2kload", "page", reduction)
        }
        return try VipsErrorLedger.attributed(to: path) {
            guard let image = ts_load_level(loader, path, option, Int32(value)) else {
                throw VipsError.take(or: "libvips cannot open \(option) \(value) of the source", source: path)
            }
            return VImage(taking: image)
        }
    }

    /// A level as every answer shows it: 8-bit sRGB in three bands (`SourceImage.displayable`, whose
    /// conversions builds use, then grey made colour).
    static func shown(_ image: VImage, load: SourceLevel.Load) throws -> VImage {
        var image = image
        // openslideload (libvips 8.14) gives RGBA in which every pixel is opaque: it has already put the
        // slide's background colour where nothing was scanned and undone the premultiplication. Dropping the
        // alpha band gives the same pixels as laying it on white, without the per-pixel work.
        if case .openslide = load, image.bands == 4 {
            image = try VImage.make { ts_extract_bands(image.pointer, $0, 0, 3) }
        }
        var shown = try SourceImage.displayable(image, alpha: .flattened(onto: .white))
        if shown.bands == 1 { shown = try shown.toSRGB() }
        return shown
    }
}
