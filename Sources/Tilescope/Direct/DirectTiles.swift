import Foundation
import HTTPServer
import Imaging
import ScrollGeometry

/// The Deep Zoom JPEG tiles of a source served from its own levels (`PyramidManifest.isDirect`): each is cut
/// from the source's nearest level at least as sharp (`PyramidalSource.read`), encoded like a built tile, and
/// held in the pyramid memory under the path a built tile would have (`FileBytesCache.hold`), so that the next
/// request for it is a hot file's answer and the versioned URL's a hot answer in C. Nothing is written to disk:
/// the memory's bound (`--pyramid-cache-mb`) is the cache's.
extension TilescopeApp {
    /// The tile's answer: from memory, else made as costly work in the client's budget. `finish` is what the
    /// route adds to a made answer (the immutable cache lifetime of a versioned URL, its hot-answer key).
    func directTile(_ record: ImageRecord, _ manifest: PyramidManifest, level: Int, column: Int, row: Int,
                    _ request: Request, finish: @escaping @Sendable (inout Response) -> Void) throws -> Reply {
        let path = store.tilePath(id: record.id, version: record.version, level: level, column: column, row: row)
        let etag = TileETag(version: record.version, .tile(level: level, column: column, row: row)).text
        let cacheControl = HTTPCaching.cacheControl(for: request, currentVersion: record.version)
        if var held = HTTPCaching.file(at: path, contentType: "image/jpeg", etag: etag, cacheControl: cacheControl,
                                       request: request, memory: pyramidBytes) {
            finish(&held)
            return .now(held)
        }
        let pyramid = manifest.pyramid
        let rect = pyramid.tileRect(level: level, column: column, row: row)
        let region = DirectTileRegion(pyramid: pyramid, level: level, rect: rect)
        let sources = directSources, memory = pyramidBytes, quality = iiif.jpegQuality
        return .costly(CostlyWork(client: clients.client(of: request), pixels: 2 * rect.width * rect.height) {
            let start = DispatchTime.now().uptimeNanoseconds
            do {
                let source = try sources.source(of: record)
                let image = try region.read(from: source)
                let bytes = SharedBytes(copying: try image.jpegData(quality: quality))
                memory.hold(bytes, at: path)
                let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                var response = Response(status: 200, headers: [
                    ("Content-Type", "image/jpeg"), ("ETag", etag), ("Cache-Control", cacheControl),
                    ("Server-Timing", "tile;desc=direct, render;dur=" + ServerTiming.milliseconds(seconds)),
                ], body: .shared(bytes))
                finish(&response)
                return response
            } catch let error as APIError {
                return error.response
            } catch {
                if let failure = sources.storeFailure(of: record, error, since: start) { return failure.response }
                return APIError(500, "render_failed", "cannot cut tile \(level)/\(column)_\(row) of \(record.id) from its source: \(error)").response
            }
        })
    }
}

/// Which source pixels a Deep Zoom tile shows. A Deep Zoom level is the full image scaled by exactly
/// 1/f (f = 2^(maxLevel - level)), its size rounded up: a level pixel is the mean of an f x f block of the source,
/// and the last column and row hold what is left of a block at the image's edge. A tile is a rectangle of level
/// pixels (overlap included). Reading its whole rectangle at once would stretch the image by the missing part of
/// the last block (at level 8 of a 3000 px image, 188 pixels for 3000 source pixels: 15.96 a pixel, not 16, and
/// the tile's far side half a pixel out of register). So the tile is read in up to four parts, each at the exact
/// scale: the whole blocks, and the partial last column, row and corner, each a pixel wide from what is there.
struct DirectTileRegion: Sendable, Equatable {
    struct Part: Sendable, Equatable {
        let source: PixelRect
        let output: PixelSize
    }

    /// Row by row: the whole blocks, then the partial column; below them the partial row, then the corner.
    let parts: [Part]
    /// Parts in a row (1 or 2), for joining them.
    let across: Int
    let output: PixelSize

    init(pyramid: Pyramid, level: Int, rect: PixelRect) {
        let factor = 1 << (pyramid.maxLevel - level)
        let x0 = rect.x * factor, y0 = rect.y * factor
        // Level pixels whose block lies wholly inside the image, across and down; at most one more is partial.
        let wholeColumns = min(rect.width, max(0, (pyramid.width - x0) / factor))
        let wholeRows = min(rect.height, max(0, (pyramid.height - y0) / factor))
        let partialColumn = rect.width > wholeColumns, partialRow = rect.height > wholeRows
        let xRest = x0 + wholeColumns * factor, yRest = y0 + wholeRows * factor
        let restWidth = pyramid.width - xRest, restHeight = pyramid.height - yRest
        var columns: [(x: Int, width: Int, pixels: Int)] = []
        if wholeColumns > 0 { columns.append((x0, wholeColumns * factor, wholeColumns)) }
        if partialColumn && restWidth > 0 { columns.append((xRest, restWidth, 1)) }
        var rows: [(y: Int, height: Int, pixels: Int)] = []
        if wholeRows > 0 { rows.append((y0, wholeRows * factor, wholeRows)) }
        if partialRow && restHeight > 0 { rows.append((yRest, restHeight, 1)) }
        parts = rows.flatMap { row in
            columns.map { column in
                Part(source: PixelRect(x: column.x, y: row.y, width: column.width, height: row.height),
                     output: PixelSize(width: column.pixels, height: row.pixels))
            }
        }
        across = columns.count
        output = PixelSize(width: columns.reduce(0) { $0 + $1.pixels }, height: rows.reduce(0) { $0 + $1.pixels })
    }

    /// The tile's pixels read from `source`, part by part at the exact scale, put side by side (a tile is at most
    /// 256 x 256: copying its pixels costs less than a libvips join, whose `arrayjoin` makes every cell the
    /// largest part's size).
    func read(from source: any RegionReading) throws -> VImage {
        let images = try parts.map { try source.read($0.source, size: $0.output) }
        guard images.count > 1 else { return images[0] }
        let bands = images[0].bands
        var pixels = [UInt8](repeating: 0, count: output.width * output.height * bands)
        var top = 0
        for rowStart in stride(from: 0, to: images.count, by: across) {
            var left = 0
            for image in images[rowStart..<min(images.count, rowStart + across)] {
                let part = try image.pixels()
                for y in 0..<image.height {
                    let from = y * image.width * bands, to = ((top + y) * output.width + left) * bands
                    pixels.replaceSubrange(to..<(to + image.width * bands), with: part[from..<(from + image.width * bands)])
                }
                left += image.width
            }
            top += images[rowStart].height
        }
        return try VImage.fromPixels(pixels, width: output.width, height: output.height, bands: bands)
    }
}
