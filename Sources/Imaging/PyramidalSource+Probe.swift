import CVipsShims
import CVips
import Foundation

/// Whether a file already is a pyramid, and its levels: by its TIFF directories, OpenSlide's properties or
/// its JPEG 2000 codestream header. Reads headers only.
extension PyramidalSource {
    /// The source with its levels, or nil for a file that is not a pyramid (a plain JPEG, PNG or WebP, a
    /// striped or single-page TIFF, a TIFF whose pages are not levels of one image, a JPEG 2000 of one
    /// resolution). Throws for a file that cannot be read.
    ///
    /// In this order: a TIFF's first page with SubIFDs that are its levels (OpenSlide 3.4.1 takes such a file,
    /// OME-TIFF among them, for a generic TIFF of one level); a slide of a vendor OpenSlide knows (an SVS is a
    /// TIFF too, but its levels and properties are OpenSlide's); a TIFF's tiled pages that are its levels
    /// (libvips's tiffload, not OpenSlide's generic TIFF: it reads JPEG tiles outside its lock, in parallel);
    /// any other OpenSlide format; a JPEG 2000 with resolution levels.
    /// `openLevels` and `openBytes` bound the levels kept open (`OpenedLevels`).
    public static func probe(path: String, openLevels: Int = defaultOpenLevels,
                             openBytes: Int = defaultOpenBytes) throws -> PyramidalSource? {
        try Vips.start()
        // libvips names a loader by its nickname or its class ("openslideload", "VipsForeignLoadOpenslideFile").
        guard let loader = ImageHeader.loader(of: path)?.lowercased() else { return nil }
        // libvips marks openslideload and jp2kload untrusted: they are used only for files named as their own
        // formats, which an upload never is (uploads are named by the closed list of formats they may be). A
        // `.tif` that OpenSlide would take (an Aperio-style TIFF) is read by tiffload: its pages are its levels.
        let trusted = Self.namesAnUntrustedLoadersFormat(path)
        let isSlide = trusted && loader.contains("openslide"), isJPEG2000 = trusted && loader.contains("jp2k")
        // Opened once: the layout read here and the tiles later sent as they are stored are of the same file.
        let file = try SourceFile(path: path)
        let layout: TIFFLayout?
        do {
            layout = try TIFFLayout.read(file)
        } catch where isSlide {
            layout = nil  // TIFF-like but its own (Hamamatsu's NDPI takes offsets past 4 GB its own way): OpenSlide's
        }
        let found: Found?
        if let tiff = layout {
            if let levels = subIFDLevels(tiff) {
                found = tiffFound(.tiffSubIFDs, levels, tiff)
            } else if isSlide, let slide = try openslideFound(path: path, tiff: tiff) {
                found = slide
            } else {
                found = pageLevels(tiff).map { tiffFound(.tiffPages, $0, tiff) }
            }
        } else if isSlide {
            found = try openslideFound(path: path, tiff: nil)
        } else if isJPEG2000 {
            found = jpeg2000Found(path: path)
        } else {
            found = nil
        }
        guard let found else { return nil }
        // Kept open for tiles sent as they are stored: the file that was probed, whatever its name holds later.
        let passes = found.levels.contains { $0.tiles?.passthrough != nil }
        return PyramidalSource(path: path, format: found.format, levels: found.levels, openCosts: found.openCosts,
                               micronsPerPixel: found.micronsPerPixel, associatedImages: found.associatedImages,
                               file: passes ? file : nil, openLevels: openLevels, openBytes: openBytes)
    }

    /// File name extensions of the formats only OpenSlide or OpenJPEG read (never `.tif`, which uploads may have).
    public static let untrustedLoaderExtensions: Set<String> = [
        "svs", "ndpi", "vms", "vmu", "scn", "mrxs", "svslide", "bif",  // OpenSlide's vendors
        "jp2", "j2k", "j2c", "jpc", "jpx", "jpf",  // JPEG 2000
    ]

    /// Whether `path` is named as a format only an untrusted loader reads (folder files an operator put there).
    static func namesAnUntrustedLoadersFormat(_ path: String) -> Bool {
        untrustedLoaderExtensions.contains((path as NSString).pathExtension.lowercased())
    }

    /// What a probe found, before the source is made.
    private struct Found {
        var format: Format
        var levels: [SourceLevel]
        var openCosts: [Int]
        var micronsPerPixel: (x: Double, y: Double)?
        var associatedImages: [String] = []
    }

    // MARK: TIFF

    /// The first page and those of its SubIFDs that are its levels.
    static func subIFDLevels(_ tiff: TIFFLayout) -> [SourceLevel]? {
        guard !tiff.subIFDs.isEmpty else { return nil }
        return levels(of: [(tiff.pages[0], .tiffPage(0))]
                      + tiff.subIFDs.enumerated().map { ($0.element, .tiffSubIFD($0.offset)) })
    }

    /// The pages that are levels of the first.
    static func pageLevels(_ tiff: TIFFLayout) -> [SourceLevel]? {
        levels(of: tiff.pages.enumerated().map { ($0.element, .tiffPage($0.offset)) })
    }

    /// The directories that are levels of one picture: the first (tiled, upright), then each tiled one that
    /// is it halved more times than the level before (a power-of-two fraction of it, its sides rounded either
    /// way). Others are skipped: an SVS's label, macro and thumbnail are in strips or of other sizes. nil
    /// without at least two levels. A source turned by its orientation tag is left to a build, which turns it.
    static func levels(of directories: [(TIFFDirectory, SourceLevel.Load)]) -> [SourceLevel]? {
        guard let (full, fullLoad) = directories.first, full.isTiled, full.orientation == 1 else { return nil }
        var levels = [level(full, fullLoad, full: full)]
        var halved = 0
        for (directory, load) in directories.dropFirst() where directory.isTiled {
            guard let n = SourceLevel.halvings(width: directory.width, height: directory.height,
                                               fullWidth: full.width, fullHeight: full.height),
                  n > halved else { continue }
            levels.append(level(directory, load, full: full))
            halved = n
        }
        return levels.count >= 2 ? levels : nil
    }

    private static func level(_ directory: TIFFDirectory, _ load: SourceLevel.Load, full: TIFFDirectory) -> SourceLevel {
        SourceLevel(width: directory.width, height: directory.height, fullWidth: full.width, fullHeight: full.height,
                    load: load, tiles: storedTiles(directory))
    }

    private static func storedTiles(_ directory: TIFFDirectory) -> SourceLevel.StoredTiles? {
        guard let width = directory.tileWidth, let height = directory.tileHeight else { return nil }
        return SourceLevel.StoredTiles(width: width, height: height, isJPEG: directory.hasJPEGTiles,
                                       passthrough: StoredJPEGTiles(directory))
    }

    private static func tiffFound(_ format: Format, _ levels: [SourceLevel], _ tiff: TIFFLayout) -> Found {
        Found(format: format, levels: levels, openCosts: levels.map { tiffOpenCost($0) },
              micronsPerPixel: micronsPerPixel(tiff.pages[0]))
    }

    /// Holding a TIFF level open: libtiff's directory, with an offset and a byte count (8 bytes each in a
    /// BigTIFF) for every tile. libvips's tile cache on a tiled page is emptied after each computation.
    static func tiffOpenCost(_ level: SourceLevel) -> Int {
        let tileWidth = level.tiles?.width ?? 256, tileHeight = level.tiles?.height ?? 256
        let tiles = ((level.width + tileWidth - 1) / tileWidth) * ((level.height + tileHeight - 1) / tileHeight)
        return (64 << 10) + 16 * tiles
    }

    /// Coarsest pixel taken for a measurement: finer than 50 µm (above 508 pixels an inch). Coarser values are
    /// mostly writers' defaults that measure nothing (72 or 96 dpi, 300 dpi for print, libvips's 10 pixels a
    /// centimetre); microscopes and scanners of slides, maps and documents write finer ones.
    static let coarsestMeasuredMicrons = 50.0

    /// A TIFF's pixel size from its resolution tags, when the unit is an inch or a centimetre and the size
    /// is fine enough to be a measurement (`coarsestMeasuredMicrons`).
    static func micronsPerPixel(_ directory: TIFFDirectory) -> (x: Double, y: Double)? {
        guard let xResolution = directory.xResolution, let yResolution = directory.yResolution,
              xResolution > 0, yResolution > 0 else { return nil }
        let micronsPerUnit: Double
        switch directory.resolutionUnit {
        case 2: micronsPerUnit = 25_400
        case 3: micronsPerUnit = 10_000
        default: return nil
        }
        let x = micronsPerUnit / xResolution, y = micronsPerUnit / yResolution
        guard x < coarsestMeasuredMicrons, y < coarsestMeasuredMicrons else { return nil }
        return (x, y)
    }

    // MARK: OpenSlide

    /// A slide of a vendor OpenSlide knows, by the properties `openslideload` puts on level 0's header: the
    /// levels, microns per pixel and the names of the associated images. Never `associated=`: libvips
    /// 8.14.1 crashes there (libvips issue 3384). nil for OpenSlide's generic TIFF (tiffload reads those) and
    /// for a slide of one level.
    private static func openslideFound(path: String, tiff: TIFFLayout?) throws -> Found? {
        let header = try open(.openslide(level: 0), path: path)
        guard let vendor = header.stringField("openslide.vendor"), vendor != "generic-tiff",
              let count = header.numberField("openslide.level-count").map({ Int($0) }), count >= 2 else { return nil }
        let fullWidth = header.width, fullHeight = header.height
        var levels: [SourceLevel] = []
        for index in 0..<count {
            guard let width = header.numberField("openslide.level[\(index)].width").map({ Int($0) }),
                  let height = header.numberField("openslide.level[\(index)].height").map({ Int($0) }),
                  width > 0, height > 0, width <= fullWidth, height <= fullHeight else { return nil }
            // The TIFF directory holding the level, where the slide is a TIFF and one tiled directory has its size.
            let stored = tiff?.pages.filter { $0.isTiled && $0.width == width && $0.height == height }
            levels.append(SourceLevel(width: width, height: height, fullWidth: fullWidth, fullHeight: fullHeight,
                                      load: .openslide(level: index),
                                      tiles: stored?.count == 1 ? storedTiles(stored![0]) : nil))
        }
        let microns = header.numberField("openslide.mpp-x").flatMap { x in
            header.numberField("openslide.mpp-y").map { (x: x, y: $0) }
        }
        let associated = (header.stringField("slide-associated-images") ?? "")
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        levels.sort { $0.downsample < $1.downsample }
        return Found(format: .openslide, levels: levels, openCosts: levels.map { openslideOpenCost($0) },
                     micronsPerPixel: microns.flatMap { $0.x > 0 && $0.y > 0 ? $0 : nil },
                     associatedImages: associated)
    }

    /// Holding an OpenSlide level open: each `openslideload` opens a handle of its own, and OpenSlide 3.4.1
    /// gives each handle a 32 MB cache of decoded tiles (measured: 50-80 MB more resident after 2,000 random
    /// 256-pixel reads of one level).
    static func openslideOpenCost(_ level: SourceLevel) -> Int { (32 << 20) + tiffOpenCost(level) }

    // MARK: JPEG 2000

    /// A JPEG 2000's resolution levels, from its codestream header: the full image and each halving of it.
    private static func jpeg2000Found(path: String) -> Found? {
        guard let header = JPEG2000Header.read(path), header.resolutions >= 2 else { return nil }
        let levels = (0..<header.resolutions).map { reduction in
            let size = header.size(reduction: reduction)
            let tileWidth = (header.tileWidth + (1 << reduction) - 1) >> reduction
            let tileHeight = (header.tileHeight + (1 << reduction) - 1) >> reduction
            return SourceLevel(width: size.width, height: size.height, fullWidth: header.width,
                               fullHeight: header.height, load: .jpeg2000(reduction: reduction),
                               tiles: SourceLevel.StoredTiles(width: tileWidth, height: tileHeight, isJPEG: false),
                               offset: (SourceLevel.jpeg2000Offset(reduction: reduction, origin: header.x0),
                                        SourceLevel.jpeg2000Offset(reduction: reduction, origin: header.y0)))
        }
        let cost = jpeg2000OpenCost(header)
        return Found(format: .jpeg2000, levels: levels, openCosts: levels.map { _ in cost }, micronsPerPixel: nil)
    }

    /// Holding a JPEG 2000 level open: OpenJPEG 2.5 sets up every tile of the codestream when it reads the
    /// header, whichever level is asked for (measured: about 12 KB a tile, 190 MB for 16,125 tiles).
    static func jpeg2000OpenCost(_ header: JPEG2000Header) -> Int {
        (1 << 20) + 12 * 1024 * header.tilesAcross * header.tilesDown
    }
}
