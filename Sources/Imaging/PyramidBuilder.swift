import CShims
import CVips
import Foundation
import ScrollGeometry

/// Builds a Deep Zoom pyramid and its whole-image preview from a source image with libvips.
///
/// The output folder holds `image.dzi`, `image_files/{level}/{col}_{row}.jpeg` and
/// `preview.jpeg`. The source streams through dzsave once (sequential access), so memory
/// grows with the image's width, not its area.
public struct PyramidBuilder: Sendable {
    public var tileSize: Int
    public var overlap: Int
    public var quality: Int
    public var previewMaxSide: Int

    public init(tileSize: Int = 254, overlap: Int = 1, quality: Int = 85, previewMaxSide: Int = 1024) {
        self.tileSize = tileSize
        self.overlap = overlap
        self.quality = quality
        self.previewMaxSide = previewMaxSide
    }

    public static let descriptorName = "image.dzi"
    public static let tilesFolderName = "image_files"
    public static let previewName = "preview.jpeg"

    /// Writes the pyramid into `folder` (which must exist) and returns its geometry.
    /// A failure carries libvips's text for this source only (`VipsErrorLedger`).
    public func build(
        source: String, into folder: String,
        progress: @escaping @Sendable (BuildProgress) -> Void = { _ in }
    ) throws -> Pyramid {
        try Vips.start()
        // The staging folder too: dzsave's write errors name it, not the source.
        return try VipsErrorLedger.attributed(to: source) { try VipsErrorLedger.attributed(to: folder) {
            do {
                return try buildAttributed(source: source, into: folder, progress: progress)
            } catch let error as VipsError {
                // A step that knew no file name (a conversion, say) left the lines naming this source.
                let named = VipsErrorLedger.take(for: [source, folder])
                guard !named.isEmpty, !error.message.contains(named) else { throw error }
                throw VipsError(message: error.message + "\n" + named)
            }
        } }
    }

    private func buildAttributed(
        source: String, into folder: String, progress: @escaping @Sendable (BuildProgress) -> Void
    ) throws -> Pyramid {
        // Strict: a truncated or corrupt source (an upload cut short, say) fails with libvips's
        // reason instead of publishing a pyramid with grey where the pixels were missing.
        let image = try Self.displayable(VImage.open(source, sequential: true, strict: true))
        let basename = (folder as NSString).appendingPathComponent("image")
        let saved = ProgressRelay(progress).observing(image) {
            ts_dzsave(image.pointer, basename, Int32(tileSize), Int32(overlap), Int32(quality))
        }
        guard saved == 0 else {
            let text = VipsErrorLedger.take(for: [source, folder])
            throw VipsError(message: text.isEmpty ? "dzsave failed (libvips gave no reason)" : text)
        }
        progress(BuildProgress(percent: 100, etaSeconds: 0))  // libvips's last eval may stop short of 100
        let pyramid = Pyramid(width: image.width, height: image.height, tileSize: tileSize, overlap: overlap)
        try writePreview(of: pyramid, tilesFolder: (folder as NSString).appendingPathComponent(Self.tilesFolderName),
                         to: (folder as NSString).appendingPathComponent(Self.previewName))
        return pyramid
    }

    /// 8-bit sRGB or greyscale without alpha: what JPEG tiles can hold. Alpha is
    /// flattened onto white, as a browser shows a transparent image on a white page.
    static func displayable(_ image: VImage) throws -> VImage {
        var result = image
        if result.hasAlpha { result = try result.flatten() }
        let interpretation = result.interpretation
        let plain = interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_B_W
        if !plain || result.format != VIPS_FORMAT_UCHAR { result = try result.toSRGB() }
        if result.format != VIPS_FORMAT_UCHAR { result = try result.castToUChar() }
        return result
    }

    /// Encoded at Q95 or more, since it is a second JPEG generation of the tiles.
    /// The preview is the preview level itself, stitched from its tiles with the overlap
    /// cut away, so a client can swap it for tiles of that level without any shift.
    private func writePreview(of pyramid: Pyramid, tilesFolder: String, to path: String) throws {
        let level = pyramid.previewLevel(maxSide: previewMaxSide)
        let grid = pyramid.tileGrid(ofLevel: level)
        let size = pyramid.size(ofLevel: level)
        var pieces: [VImage] = []
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let tile = try VImage.open("\(tilesFolder)/\(level)/\(column)_\(row).jpeg")
                let rect = pyramid.tileRect(level: level, column: column, row: row)
                let x = column * tileSize - rect.x
                let y = row * tileSize - rect.y
                let width = min(tileSize, size.width - column * tileSize)
                let height = min(tileSize, size.height - row * tileSize)
                pieces.append(try tile.crop(x: x, y: y, width: width, height: height))
            }
        }
        // arrayjoin spaces cells by the largest piece (a full tile), padding the short last
        // column and row; cutting back to the level size removes that padding.
        try VImage.join(pieces, across: grid.columns)
            .crop(x: 0, y: 0, width: size.width, height: size.height)
            .saveJPEG(to: path, quality: max(quality, 95))
    }
}
