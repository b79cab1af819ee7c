import Catalog
import Foundation
import ScrollGeometry

/// `pyramid.json`: what a published pyramid folder holds. It is written last, inside the
/// staging folder, so a folder under `pyramids/` is complete by construction; while a progressive
/// build is still adding finer levels, `readyLevels` says how many levels (0 up) are there, and
/// the file is replaced (atomically) after each level's folder has been renamed into place.
public struct PyramidManifest: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var tileSize: Int
    public var overlap: Int
    public var format: String
    public var source: String
    public var version: String
    /// Levels `0..<readyLevels` are published; nil (absent from the file) means all of them.
    public var readyLevels: Int?
    /// true when the source is transparent: every tile has a PNG beside its JPEG, alpha kept, and the
    /// folder a `preview.png` (`PyramidPart.alpha`). Absent from the file for an opaque one.
    public var alpha: Bool?
    /// true when the source already is a pyramid served as it is (`DirectSources`): the folder holds the
    /// descriptor, the preview and this file, no tiles; each tile is cut from the source's own levels when asked.
    /// Absent from the file for a built pyramid.
    public var direct: Bool?
    /// The physical size of a pixel, when the source says so (a slide's `openslide.mpp-x/y`, a TIFF's resolution
    /// when fine enough to be a measurement): for the API, IIIF's physical-dimensions service and a scale bar.
    public var micronsPerPixel: MicronsPerPixel?
    /// A slide's associated images (its label, the macro photograph of the glass...), published as JPEGs beside
    /// the preview (`associated/{name}.jpeg`). Absent from the file when there are none.
    public var associatedImages: [AssociatedImageEntry]?
    /// In an object store (`S3PyramidStore`), the name inside the version of the index of the packs that hold its
    /// tiles (`packs/{upload}.index`, `PackIndex`). Absent from the file when each file is an object of its own (a
    /// data folder, a version published before packs, a pyramid with no tile).
    public var packIndex: String?

    /// Whether the pyramid holds the PNG tiles of a transparent source.
    public var isTransparent: Bool { alpha == true }

    /// Whether tiles come from the source's own levels on request rather than from files.
    public var isDirect: Bool { direct == true }

    public var pyramid: Pyramid {
        Pyramid(width: width, height: height, tileSize: tileSize, overlap: overlap)
    }

    /// Levels whose tiles are served: every level once complete.
    public var levelsReady: Int { readyLevels.map { min($0, pyramid.maxLevel + 1) } ?? pyramid.maxLevel + 1 }

    public var isComplete: Bool { levelsReady > pyramid.maxLevel }

    public func isReady(level: Int) -> Bool { level >= 0 && level < levelsReady }

    /// `readyLevels` nil: the whole pyramid.
    public init(pyramid: Pyramid, source: String, version: String, readyLevels: Int? = nil, alpha: Bool = false,
                direct: Bool = false, micronsPerPixel: MicronsPerPixel? = nil, associatedImages: [AssociatedImageEntry] = []) {
        width = pyramid.width
        height = pyramid.height
        tileSize = pyramid.tileSize
        overlap = pyramid.overlap
        format = "jpeg"
        self.source = source
        self.version = version
        self.readyLevels = readyLevels.flatMap { $0 > pyramid.maxLevel ? nil : $0 }
        self.alpha = alpha ? true : nil
        self.direct = direct ? true : nil
        self.micronsPerPixel = micronsPerPixel
        self.associatedImages = associatedImages.isEmpty ? nil : associatedImages
    }

    /// The same manifest with its tiles in the packs that `index` names (nil: one object each).
    public func packed(index: String?) -> PyramidManifest {
        var manifest = self
        manifest.packIndex = index
        return manifest
    }

    /// The same pyramid with levels `0..<count` published (all of them: the complete manifest).
    public func with(readyLevels count: Int) -> PyramidManifest {
        PyramidManifest(pyramid: pyramid, source: source, version: version, readyLevels: count, alpha: isTransparent,
                        direct: isDirect, micronsPerPixel: micronsPerPixel, associatedImages: associatedImages ?? [])
    }
}

/// Microns per pixel across and down.
public struct MicronsPerPixel: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// Only finite, positive sizes below a millimetre a pixel: anything else is not a measurement of a pixel.
    public init?(checking x: Double, _ y: Double) {
        guard x.isFinite, y.isFinite, x > 0, y > 0, x < 1000, y < 1000 else { return nil }
        self.init(x: x, y: y)
    }
}
