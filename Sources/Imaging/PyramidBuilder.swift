import CVipsShims
import CVips
import Foundation
import ScrollGeometry

/// Builds a Deep Zoom pyramid and its whole-image preview from a source image with libvips,
/// progressively: the preview and the coarse levels first, then the finer levels, coarse to fine.
///
/// A published pyramid folder holds `image.dzi`, `image_files/{level}/{col}_{row}.jpeg` and
/// `preview.jpeg`, transparent pixels laid over `background`. A transparent source (one with an alpha
/// band) also gets `{col}_{row}.png` beside every tile and `preview.png`, alpha kept (`addAlphaTiles`).
/// The build hands these over
/// in parts (`PyramidPart`), each complete on disk:
///
/// 1. the base: the descriptor, the preview and levels 0 to the preview level. For a JPEG at least
///    eight times the preview's size it is made before the full pass, from a decode at 1/8 scale
///    (the image is never decoded whole for it), so a new image can be looked at after a small
///    fraction of its build (`previewComesFirst`). Other formats have no cheap reduced decode, and
///    a photo's full pass is short: their base comes from the full pass's own tiles, at its end.
/// 2. one part per finer level, from one dzsave pass over the full image. The source streams
///    through it once (sequential access), so memory grows with the image's width, not its area.
///    dzsave finishes all levels together at the end of that pass, so these come in a burst.
public struct PyramidBuilder: Sendable {
    public var tileSize: Int
    public var overlap: Int
    public var quality: Int
    public var previewMaxSide: Int
    /// What transparent pixels are laid over in the JPEG tiles and preview.
    public var background: Background

    public init(tileSize: Int = 254, overlap: Int = 1, quality: Int = 85, previewMaxSide: Int = 1024,
                background: Background = .white) {
        self.tileSize = tileSize
        self.overlap = overlap
        self.quality = quality
        self.previewMaxSide = previewMaxSide
        self.background = background
    }

    public static let descriptorName = "image.dzi"
    public static let tilesFolderName = "image_files"
    public static let previewName = "preview.jpeg"
    /// The preview of a transparent source with its alpha (`PyramidPart.alpha`).
    public static let alphaPreviewName = "preview.png"

    /// Where the full pass writes its tiles inside the work folder of `build(source:into:progress:finished:)`:
    /// `{level}/{column}_{row}.jpeg`. libvips 8.14's dzsave (libgsf) writes each tile to a hidden temporary and
    /// renames it into place whole, so a tile seen there under its name is complete: a store may send the tiles
    /// while the pass goes on (`PassUploads`). The folder of a level is moved away when the level is handed over.
    public static func passTilesFolder(inWork folder: String) -> String {
        ((folder as NSString).appendingPathComponent("rest") as NSString).appendingPathComponent(tilesFolderName)
    }

    /// Writes the whole pyramid into `folder` (which must exist) and returns its geometry: the
    /// parts of `build(source:into:progress:finished:)` assembled in place, for callers that
    /// publish the pyramid in one piece.
    public func build(
        source: String, into folder: String,
        progress: @escaping @Sendable (BuildProgress) -> Void = { _ in }
    ) throws -> Pyramid {
        let work = (folder as NSString).appendingPathComponent(".parts")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let tiles = (folder as NSString).appendingPathComponent(Self.tilesFolderName)
        return try build(source: source, into: work, progress: progress) { part in
            switch part.kind {
            case .base:
                for name in try FileManager.default.contentsOfDirectory(atPath: part.folder) {
                    try Self.move(part.folder + "/" + name, to: (folder as NSString).appendingPathComponent(name))
                }
            case .level:
                try Self.move(part.folder, to: "\(tiles)/\(part.levels.lowerBound)")
            }
        }
    }

    /// Builds into `folder` (which must exist; its contents are working files) and hands every
    /// finished part to `finished` as soon as it is complete, the base first, then the finer levels
    /// coarse to fine. `finished` may move the part's folder away (to publish it). `passWritten` is told
    /// once the full pass has written its last tile into `folder`, before any base made from them. Returns the
    /// geometry. A failure carries libvips's text for this source only (`VipsErrorLedger`); an
    /// error thrown by `finished` ends the build with that error.
    public func build(
        source: String, into folder: String,
        progress: @escaping @Sendable (BuildProgress) -> Void = { _ in },
        passWritten: () -> Void = {},
        finished: (PyramidPart) throws -> Void
    ) throws -> Pyramid {
        try Vips.start(toRead: source)
        // The staging folder too: dzsave's write errors name it, not the source.
        return try VipsErrorLedger.attributed(to: source) { try VipsErrorLedger.attributed(to: folder) {
            do {
                return try buildAttributed(source: source, into: folder, progress: progress, passWritten: passWritten,
                                           finished: finished)
            } catch let error as VipsError {
                // A step that knew no file name (a conversion, say) left the lines naming this source.
                let named = VipsErrorLedger.take(for: [source, folder])
                guard !named.isEmpty, !error.message.contains(named) else { throw error }
                throw VipsError(message: error.message + "\n" + named)
            }
        } }
    }

    private func buildAttributed(
        source: String, into folder: String, progress: @escaping @Sendable (BuildProgress) -> Void,
        passWritten: () -> Void, finished: (PyramidPart) throws -> Void
    ) throws -> Pyramid {
        // Strict: a truncated or corrupt source (an upload cut short, say) fails with libvips's
        // reason instead of publishing a pyramid with grey where the pixels were missing.
        let (stored, image, alpha) = try BuildPhases.timing(.open) {
            let stored = try VImage.open(source, sequential: true, strict: true)
            let upright = try SourceImage.upright(stored, scratch: folder)
            return (stored, try SourceImage.displayable(upright, alpha: .flattened(onto: background)), upright.hasAlpha)
        }
        let pyramid = Pyramid(width: image.width, height: image.height, tileSize: tileSize, overlap: overlap)
        let previewLevel = pyramid.previewLevel(maxSide: previewMaxSide)
        let base = (folder as NSString).appendingPathComponent("base")
        let rest = (folder as NSString).appendingPathComponent("rest")
        for path in [base, rest] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        let basePart = PyramidPart(kind: .base, folder: base, levels: 0...previewLevel, pyramid: pyramid, alpha: alpha)
        // A JPEG has no alpha, so a transparent source never takes the reduced decode.
        // The preview's pixels live in this closure only: released before the full pass, not held through it.
        let baseFirst = try {
            guard !alpha, Self.previewComesFirst(pyramid, previewLevel: previewLevel), Self.decodesReduced(source) else { return false }
            let preview = try BuildPhases.timing(.previewDecode) {
                try reducedPreview(of: source, stored: stored, pyramid: pyramid, level: previewLevel)
            }
            guard let preview else { return false }
            try BuildPhases.timing(.base) { try writeBase(from: preview, of: pyramid, into: base) }
            return true
        }()
        if baseFirst {
            // libvips's operation cache would keep the preview's pipeline (and its pixels) through the
            // whole full pass, on top of dzsave's own memory.
            Self.dropCachedOperations()
            try finished(basePart)
        }
        // A transparent source's two passes share the progress: each is half the work. The passes' memory
        // is sampled at each percent: they are where a build's peak is.
        let phases = BuildPhases.current
        let passProgress: @Sendable (BuildProgress) -> Void = { (step: BuildProgress) in
            phases?.sampleMemory()
            progress(alpha ? BuildProgress(percent: step.percent / 2, etaSeconds: step.etaSeconds) : step)
        }
        try BuildPhases.timing(.levels) { try dzsave(image, into: rest, source: source, progress: passProgress) }
        let restTiles = Self.passTilesFolder(inWork: folder)
        if alpha {
            try BuildPhases.timing(.alpha) {
                try addAlphaTiles(of: source, pyramid: pyramid, scratch: folder, into: restTiles) { (step: BuildProgress) in
                    phases?.sampleMemory()
                    progress(BuildProgress(percent: 50 + step.percent / 2, etaSeconds: step.etaSeconds))
                }
            }
        }
        passWritten()
        if !baseFirst {
            try BuildPhases.timing(.base) { try assembleBase(of: pyramid, fromTilesIn: rest, into: base, alpha: alpha) }
            try finished(basePart)
        }
        if previewLevel < pyramid.maxLevel {
            for level in (previewLevel + 1)...pyramid.maxLevel {
                try finished(PyramidPart(kind: .level, folder: "\(restTiles)/\(level)", levels: level...level, pyramid: pyramid,
                                         alpha: alpha))
            }
        }
        progress(BuildProgress(percent: 100, etaSeconds: 0))  // libvips's last eval may stop short of 100
        // The pass's pipeline is of no use to the next build, yet the cache would keep it (up to 100 operations
        // and 100 MB): a folder of photos built in one process grew to 1.48x dzsave's peak anonymous memory.
        Self.dropCachedOperations()
        return pyramid
    }

    /// Whether a JPEG's base is worth a decode of its own before the full pass: when the preview level is at
    /// least three levels below the full size, so a 1/8-scale decode (two threads, `EighthScaleJPEG`) reaches it.
    /// That second entropy decode costs about an eighth of the build at any size; it buys the preview seconds
    /// early in a large image's build, but in a photo's (a side of 4096 or less with the 1024 preview: a 1/4 or
    /// 1/2 decode by libjpeg on one thread) a few tenths of a second, the full pass being short too: there it
    /// was 14 % of a 4000x3000 photo's instructions (docs/benchmarks.md). Such a source's base comes from the
    /// full pass's own tiles at its end, as a PNG's does.
    static func previewComesFirst(_ pyramid: Pyramid, previewLevel: Int) -> Bool {
        pyramid.maxLevel - previewLevel >= 3
    }

    /// Empties libvips's operation cache and keeps its limit. (Not vips_cache_drop_all: it frees the cache
    /// itself, and the next operation crashed.)
    static func dropCachedOperations() {
        let cached = vips_cache_get_max()
        vips_cache_set_max(0)
        vips_cache_set_max(cached)
    }

    /// One dzsave pass over the full image into `folder/image_files`.
    private func dzsave(_ image: VImage, into folder: String, source: String,
                        progress: @escaping @Sendable (BuildProgress) -> Void) throws {
        let basename = (folder as NSString).appendingPathComponent("image")
        // Before libvips: a folder dzsave cannot create aborts the process (see PyramidFolders).
        let levels = Pyramid(width: image.width, height: image.height, tileSize: tileSize, overlap: overlap)
        try PyramidFolders.prepare(basename: basename, maxLevel: levels.maxLevel)
        let saved = ProgressRelay(progress).observing(image) {
            ts_dzsave(image.pointer, basename, Int32(tileSize), Int32(overlap), Int32(quality))
        }
        guard saved == 0 else {
            let text = VipsErrorLedger.take(for: [source, folder])
            throw VipsError(message: text.isEmpty ? "dzsave failed (libvips gave no reason)" : text)
        }
    }

    /// The second pass of a transparent source: the same grid of tiles as PNG with the alpha kept, beside the
    /// JPEGs in `tilesFolder` (`{level}/{col}_{row}.png`). The deepest level is the source's pixels, from a dzsave
    /// pass of its own (the source is read again rather than kept: the first pass streamed it, and holding it
    /// decoded would cost its whole size in memory). Each coarser level is shrunk from the finer one's tiles
    /// 2 x 2, as dzsave does, but weighting each pixel by its alpha (`RegionPixels.halved`): dzsave's plain mean
    /// would mix the colour of invisible pixels into their visible neighbours (a dark fringe round a logo cut
    /// out of black), where a flatten of these tiles now gives the JPEG levels' picture.
    private func addAlphaTiles(of source: String, pyramid: Pyramid, scratch folder: String, into tilesFolder: String,
                               progress: @escaping @Sendable (BuildProgress) -> Void) throws {
        let stored = try VImage.open(source, sequential: true, strict: true)
        let image = try SourceImage.displayable(SourceImage.upright(stored, scratch: folder), alpha: .kept)
        guard image.width == pyramid.width, image.height == pyramid.height else {
            throw VipsError(message: "the source changed between the build's two passes")
        }
        let work = (folder as NSString).appendingPathComponent("alpha")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let basename = (work as NSString).appendingPathComponent("image")
        try PyramidFolders.prepare(basename: basename, maxLevel: 0)
        let saved = ProgressRelay(progress).observing(image) {
            ts_dzsave_png_deepest(image.pointer, basename, Int32(tileSize), Int32(overlap))
        }
        guard saved == 0 else {
            let text = VipsErrorLedger.take(for: [source, folder])
            throw VipsError(message: text.isEmpty ? "dzsave failed (libvips gave no reason)" : text)
        }
        let deepest = (work as NSString).appendingPathComponent(Self.tilesFolderName) + "/0"
        for name in try FileManager.default.contentsOfDirectory(atPath: deepest) where name.hasSuffix(".png") {
            try Self.move("\(deepest)/\(name)", to: "\(tilesFolder)/\(pyramid.maxLevel)/\(name)")
        }
        try FileManager.default.removeItem(atPath: work)
        let reader = PyramidRegionReader(pyramid: pyramid, isTransparent: true) { level, column, row in
            "\(tilesFolder)/\(level)/\(column)_\(row).png"
        }
        for level in stride(from: pyramid.maxLevel - 1, through: 0, by: -1) {
            let grid = pyramid.tileGrid(ofLevel: level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let tile = try reader.tileFromFinerLevel(level: level, column: column, row: row).image().pngData()
                    try Data(tile).write(to: URL(fileURLWithPath: "\(tilesFolder)/\(level)/\(column)_\(row).png"))
                }
            }
        }
    }

    /// The preview level's pixels from a JPEG decoded at 1/8 scale (the partial last blocks kept: exactly a
    /// level's size), halved the rest of the way as dzsave makes each level from the one below, and held in
    /// memory (a few megabytes at most). Pixel `i` of the level covers source pixels `[i * 2^k, (i + 1) * 2^k)`,
    /// the edge repeated, as on every other level. The pixels come from `EighthScaleJPEG` where it takes the
    /// file, on two threads where it can split the data, and from libjpeg's DCT scaling otherwise. nil for a
    /// source whose preview level is less than three levels below its size (`previewComesFirst`) or that this
    /// cannot read so (turned by its orientation, CMYK, a progressive file too large for libjpeg's memory cap):
    /// its base then comes from the full pass.
    func reducedPreview(of source: String, stored: VImage, pyramid: Pyramid, level: Int) throws -> VImage? {
        guard Self.previewComesFirst(pyramid, previewLevel: level) else { return nil }
        // The blocks of a reduced decode start at the stored top left: after a flip or a turn they would
        // start at another corner, off the grid of the levels dzsave makes from the upright image.
        guard SourceImage.orientation(of: stored) == 1 else { return nil }
        var decodedLevel = pyramid.maxLevel - 3
        var image: VImage
        if let eighth = try EighthScaleJPEG.decode(source) {
            image = eighth.image
        } else if let reduced = try? Self.decodeJPEG(source, scale: 8) {
            image = reduced
        } else {
            return nil
        }
        let expected = pyramid.size(ofLevel: decodedLevel)
        guard image.width == expected.width, image.height == expected.height else {
            throw VipsError(message: "the reduced decode came out \(image.width)x\(image.height), not \(expected.width)x\(expected.height)")
        }
        while decodedLevel > level {
            image = try image.halved()
            decodedLevel -= 1
        }
        return try SourceImage.displayable(image, profileSource: stored).inMemory()
    }

    /// The JPEG at `path` decoded whole at 1/`scale` by libjpeg: nil for CMYK.
    static func decodeJPEG(_ path: String, scale: Int) throws -> VImage? {
        guard let rows = try JPEGRowReader.open(path, scale: scale) else { return nil }
        let buffer = try VImage.PixelBuffer(byteCount: rows.width * rows.height * rows.bands)
        try rows.read(rows.height, into: buffer.bytes)
        return try VImage(pixels: buffer, width: rows.width, height: rows.height, bands: rows.bands)
    }

    /// The base from the preview level's pixels: the preview itself, levels 0 to the preview level
    /// cut from it (the same sizes as the full pyramid's, since each level halves rounding up), and
    /// the full image's descriptor.
    private func writeBase(from preview: VImage, of pyramid: Pyramid, into folder: String) throws {
        // Encoded like the tiles (their quality, so 4:2:0 below Q90): clients draw it as the preview level's tiles.
        try preview.saveJPEG(to: (folder as NSString).appendingPathComponent(Self.previewName), quality: quality)
        try dzsave(preview, into: folder, source: folder) { _ in }
        // dzsave's metadata of the image it saved, the preview: it would mislead next to the full pyramid.
        try? FileManager.default.removeItem(atPath: "\(folder)/\(Self.tilesFolderName)/vips-properties.xml")
        try DeepZoomDescriptor.xml(of: pyramid).write(
            toFile: (folder as NSString).appendingPathComponent(Self.descriptorName), atomically: false, encoding: .utf8)
    }

    /// The base from a finished full pass: its descriptor and coarse levels moved over, and the
    /// preview stitched from the preview level's tiles.
    private func assembleBase(of pyramid: Pyramid, fromTilesIn rest: String, into folder: String, alpha: Bool) throws {
        let restTiles = (rest as NSString).appendingPathComponent(Self.tilesFolderName)
        let baseTiles = (folder as NSString).appendingPathComponent(Self.tilesFolderName)
        try FileManager.default.createDirectory(atPath: baseTiles, withIntermediateDirectories: true)
        try Self.move((rest as NSString).appendingPathComponent(Self.descriptorName),
                      to: (folder as NSString).appendingPathComponent(Self.descriptorName))
        let previewLevel = pyramid.previewLevel(maxSide: previewMaxSide)
        for level in 0...previewLevel { try Self.move("\(restTiles)/\(level)", to: "\(baseTiles)/\(level)") }
        try writePreview(of: pyramid, tilesFolder: baseTiles, to: (folder as NSString).appendingPathComponent(Self.previewName))
        if alpha {
            try writePreview(of: pyramid, tilesFolder: baseTiles,
                             to: (folder as NSString).appendingPathComponent(Self.alphaPreviewName), png: true)
        }
    }

    /// Whether libvips can decode the file at a fraction of its size without decoding it whole:
    /// JPEG (libjpeg's DCT scaling). The loader is named "jpegload" or "VipsForeignLoadJpegFile".
    static func decodesReduced(_ source: String) -> Bool {
        guard let loader = ImageHeader.loader(of: source)?.lowercased() else { return false }
        return loader.hasPrefix("jpegload") || loader.hasPrefix("vipsforeignloadjpeg")
    }

    static func move(_ from: String, to destination: String) throws {
        guard rename(from, destination) == 0 else {
            throw VipsError(message: "cannot move \(from) to \(destination): \(String(cString: strerror(errno)))")
        }
    }

    /// Encoded like the tiles, as clients draw it in place of the preview level's tiles.
    /// The preview is the preview level itself, stitched from its tiles with the overlap
    /// cut away, so a client can swap it for tiles of that level without any shift.
    /// `png`: from the PNG tiles, alpha kept, saved as PNG.
    private func writePreview(of pyramid: Pyramid, tilesFolder: String, to path: String, png: Bool = false) throws {
        let level = pyramid.previewLevel(maxSide: previewMaxSide)
        let size = pyramid.size(ofLevel: level)
        if !png {
            let pixels = try stitchedLevel(level, of: pyramid, tilesFolder: tilesFolder)
            try Data(try pixels.jpegData(quality: quality)).write(to: URL(fileURLWithPath: path))
            return
        }
        let grid = pyramid.tileGrid(ofLevel: level)
        var pieces: [VImage] = []
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let piece = tilePiece(of: pyramid, level: level, column: column, row: row)
                pieces.append(try VImage.open("\(tilesFolder)/\(level)/\(column)_\(row).png").crop(
                    x: piece.x, y: piece.y, width: piece.width, height: piece.height))
            }
        }
        // arrayjoin spaces cells by the largest piece (a full tile), padding the short last
        // column and row; cutting back to the level size removes that padding.
        let preview = try VImage.join(pieces, across: grid.columns).crop(x: 0, y: 0, width: size.width, height: size.height)
        try Data(try preview.pngData()).write(to: URL(fileURLWithPath: path))
    }

    /// A level's whole picture from its JPEG tiles, decoded by libjpeg-turbo straight into one buffer
    /// (`JPEGTile`): the pixels libvips's jpegload gives for the same tiles. Why not libvips's load, crop and
    /// join: for a photo's preview (a dozen tiles) that pipeline's set-up was most of the 20 ms this step took
    /// after the full pass, a fixed cost every photo's build pays over dzsave's (docs/benchmarks.md).
    func stitchedLevel(_ level: Int, of pyramid: Pyramid, tilesFolder: String) throws -> RegionPixels {
        let size = pyramid.size(ofLevel: level)
        let grid = pyramid.tileGrid(ofLevel: level)
        let bands = try JPEGTile.components("\(tilesFolder)/\(level)/0_0.jpeg")
        let pixels = try RegionPixels(width: size.width, height: size.height, bands: bands)
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let piece = tilePiece(of: pyramid, level: level, column: column, row: row)
                let offset = (row * tileSize) * pixels.stride + (column * tileSize) * bands
                try JPEGTile.decode("\(tilesFolder)/\(level)/\(column)_\(row).jpeg", rect: piece,
                                    into: pixels.buffer.bytes + offset, stride: pixels.stride, bands: bands)
            }
        }
        return pixels
    }

    /// The part of a tile that is its own, overlap cut away: where it lies in the tile's pixels.
    private func tilePiece(of pyramid: Pyramid, level: Int, column: Int, row: Int) -> PixelRect {
        let size = pyramid.size(ofLevel: level)
        let rect = pyramid.tileRect(level: level, column: column, row: row)
        return PixelRect(x: column * tileSize - rect.x, y: row * tileSize - rect.y,
                         width: min(tileSize, size.width - column * tileSize),
                         height: min(tileSize, size.height - row * tileSize))
    }
}
