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
    /// A slide's associated images (label, macro...) published beside its preview: names and sizes.
    public var associatedImages: [AssociatedImageEntry]

    public init(id: String, fileName: String, size: Int, modifiedNanoseconds: Int, version: String,
                width: Int, height: Int, built: (tileSize: Int, overlap: Int)?, alpha: Bool = false, direct: Bool = false,
                micronsPerPixel: (x: Double, y: Double)? = nil, associatedImages: [AssociatedImageEntry] = []) {
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
        self.associatedImages = associatedImages
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.id == b.id && a.fileName == b.fileName && a.size == b.size && a.modifiedNanoseconds == b.modifiedNanoseconds
            && a.version == b.version && a.width == b.width && a.height == b.height
            && a.built?.tileSize == b.built?.tileSize && a.built?.overlap == b.built?.overlap && a.alpha == b.alpha
            && a.direct == b.direct
            && a.micronsPerPixel?.x == b.micronsPerPixel?.x && a.micronsPerPixel?.y == b.micronsPerPixel?.y
            && a.associatedImages == b.associatedImages
    }
}

/// One associated image of a slide, as the catalog keeps it.
public struct AssociatedImageEntry: Sendable, Equatable, Codable {
    /// OpenSlide's name (label, macro, thumbnail...), letters, digits, `-` and `_` only.
    public var name: String
    public var width: Int
    public var height: Int

    public init(name: String, width: Int, height: Int) {
        self.name = name
        self.width = width
        self.height = height
    }

    /// `label:300x200;macro:800x300`: one TEXT column for the list.
    public static func text(of entries: [AssociatedImageEntry]) -> String? {
        entries.isEmpty ? nil : entries.map { "\($0.name):\($0.width)x\($0.height)" }.joined(separator: ";")
    }

    /// The list back from its text; entries that do not read as one are left out.
    public static func entries(from text: String?) -> [AssociatedImageEntry] {
        guard let text else { return [] }
        return text.split(separator: ";").compactMap { item in
            let parts = item.split(separator: ":")
            guard parts.count == 2, isName(parts[0]) else { return nil }
            let size = parts[1].split(separator: "x")
            guard size.count == 2, let width = Int(size[0]), let height = Int(size[1]), width > 0, height > 0 else { return nil }
            return AssociatedImageEntry(name: String(parts[0]), width: width, height: height)
        }
    }

    /// 1 to 64 ASCII letters, digits, `-` or `_`: safe in a file name, a URL and the catalog's text.
    public static func isName<S: StringProtocol>(_ name: S) -> Bool {
        (1...64).contains(name.utf8.count) && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2D || byte == 0x5F
        }
    }
}
