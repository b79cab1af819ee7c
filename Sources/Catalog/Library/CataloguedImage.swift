import Foundation

/// What the catalog remembers of one image between runs: its file, the version last seen, its
/// size and, once its pyramid is published, that pyramid's geometry. Enough to serve the image at
/// start before the images folder has been looked at again.
public struct CataloguedImage: Sendable, Equatable {
    public var id: String
    public var fileName: String
    public var size: Int
    public var modifiedNanoseconds: Int
    public var version: String
    public var width: Int
    public var height: Int
    /// The published pyramid's tile size and overlap; nil while the version is not built.
    public var built: (tileSize: Int, overlap: Int)?
    /// Whether the published pyramid holds PNG tiles with the alpha of a transparent source.
    public var alpha: Bool
    /// Whether the source is served from its own levels (no tiles were built).
    public var direct: Bool
    /// Microns per pixel across and down, when the source says.
    public var micronsPerPixel: (x: Double, y: Double)?

    public init(id: String, fileName: String, size: Int, modifiedNanoseconds: Int, version: String,
                width: Int, height: Int, built: (tileSize: Int, overlap: Int)?, alpha: Bool = false, direct: Bool = false,
                micronsPerPixel: (x: Double, y: Double)? = nil) {
        self.id = id
        self.fileName = fileName
        self.size = size
        self.modifiedNanoseconds = modifiedNanoseconds
        self.version = version
        self.width = width
        self.height = height
        self.built = built
        self.alpha = alpha
        self.direct = direct
        self.micronsPerPixel = micronsPerPixel
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.fileName == b.fileName && a.size == b.size && a.modifiedNanoseconds == b.modifiedNanoseconds
            && a.version == b.version && a.width == b.width && a.height == b.height
            && a.built?.tileSize == b.built?.tileSize && a.built?.overlap == b.built?.overlap && a.alpha == b.alpha
            && a.direct == b.direct
            && a.micronsPerPixel?.x == b.micronsPerPixel?.x && a.micronsPerPixel?.y == b.micronsPerPixel?.y
    }
}
