import Foundation

/// One resolution level of a source that already is a pyramid (`PyramidalSource`): its size, how much
/// coarser than the full image it is, how libvips opens it and how its pixels are stored.
public struct SourceLevel: Sendable, Equatable {
    /// Which loader opens the level, and which of the file's images it is.
    public enum Load: Sendable, Hashable {
        /// Page (directory) `n` of a TIFF: `tiffload page=n`.
        case tiffPage(Int)
        /// SubIFD `n` of a TIFF's first page: `tiffload subifd=n` (the first page itself is `.tiffPage(0)`).
        case tiffSubIFD(Int)
        /// OpenSlide's level `n`: `openslideload level=n`.
        case openslide(level: Int)
        /// Resolution level `reduction` of a JPEG 2000 codestream, the full image halved that many times:
        /// `jp2kload page=reduction`.
        case jpeg2000(reduction: Int)
    }

    /// The level's tile grid as stored in the file, for passing tiles through without decoding them.
    public struct StoredTiles: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// Each tile is a JPEG of its own (a TIFF's compression 7; a TIFF may keep the tables in its
        /// JPEGTables tag, to be put in front of each tile's data).
        public var isJPEG: Bool
        /// Where the tiles' JPEGs are, when they can be sent as they are (`StoredJPEGTiles`).
        var passthrough: StoredJPEGTiles?

        public init(width: Int, height: Int, isJPEG: Bool) {
            self.width = width
            self.height = height
            self.isJPEG = isJPEG
        }

        init(width: Int, height: Int, isJPEG: Bool, passthrough: StoredJPEGTiles?) {
            self.init(width: width, height: height, isJPEG: isJPEG)
            self.passthrough = passthrough
        }
    }

    public let width: Int
    public let height: Int
    /// Full-resolution pixels per level pixel: exactly 2^n for a level that is the full image halved n times
    /// (its sides rounded either way, as writers do), else the mean of the two sides' ratios.
    public let downsample: Double
    public let load: Load
    /// nil where the file stores the level otherwise (strips, OpenSlide formats other than TIFF's) or it is unknown.
    public let tiles: StoredTiles?
    /// Full-resolution pixels per level pixel along each side: the downsample for a halved level, else each
    /// side's own ratio, so that the level's last pixel column and row still end where the image does.
    let scaleX: Double
    let scaleY: Double
    /// Where the full image's pixel edges fall on the level: full-resolution position x (pixel i spans i ..< i + 1)
    /// is level position x / scaleX + offsetX. 0 for a level whose pixel is the mean of a block of the full
    /// image (TIFF pyramids, OpenSlide); a JPEG 2000 level's pixel is centred on the first pixel of its block
    /// instead (the wavelet's low-pass is centred on even samples), half a level pixel less half a full pixel
    /// earlier (`jpeg2000Offset`).
    let offsetX: Double
    let offsetY: Double

    /// A level of `width` x `height` of an image of `fullWidth` x `fullHeight`; `offset` as `offsetX`, `offsetY`.
    init(width: Int, height: Int, fullWidth: Int, fullHeight: Int, load: Load, tiles: StoredTiles?,
         offset: (x: Double, y: Double) = (0, 0)) {
        self.width = width
        self.height = height
        self.load = load
        self.tiles = tiles
        offsetX = offset.x
        offsetY = offset.y
        if let halvings = Self.halvings(width: width, height: height, fullWidth: fullWidth, fullHeight: fullHeight) {
            downsample = Double(1 << halvings)
            scaleX = downsample
            scaleY = downsample
        } else {
            scaleX = Double(fullWidth) / Double(width)
            scaleY = Double(fullHeight) / Double(height)
            downsample = (scaleX + scaleY) / 2
        }
    }

    /// n when both sides are the full image's halved n times, rounded down or up (each within one pixel of
    /// the exact quotient); nil for any other size.
    static func halvings(width: Int, height: Int, fullWidth: Int, fullHeight: Int) -> Int? {
        guard width > 0, height > 0, width <= fullWidth, height <= fullHeight else { return nil }
        let n = Int((log2(Double(fullWidth) / Double(width))).rounded())
        guard n >= 0, n < 48 else { return nil }
        let divisor = Double(1 << n)
        let fitsWidth = abs(Double(fullWidth) / divisor - Double(width)) < 1
        let fitsHeight = abs(Double(fullHeight) / divisor - Double(height)) < 1
        return fitsWidth && fitsHeight ? n : nil
    }

    /// `offsetX` (or Y) of JPEG 2000 resolution level `reduction` of an image starting at `origin` on the
    /// codestream's reference grid: level pixel k is the reference grid's sample 2^r (ceil(origin / 2^r) + k).
    static func jpeg2000Offset(reduction: Int, origin: Int) -> Double {
        let divisor = Double(1 << reduction)
        return 0.5 - 0.5 / divisor + Double(origin) / divisor - (Double(origin) / divisor).rounded(.up)
    }
}
