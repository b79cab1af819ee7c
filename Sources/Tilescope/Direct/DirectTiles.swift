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
                let image = try source.read(region.source, size: region.output)
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
                return APIError(500, "render_failed", "cannot cut tile \(level)/\(column)_\(row) of \(record.id) from its source: \(error)").response
            }
        })
    }
}

/// Which source pixels a Deep Zoom tile shows. A level of a Deep Zoom pyramid is the full image scaled by
/// 2^-(maxLevel - level), its size rounded up; a tile is a rectangle of that level (overlap included). The
/// source region is that rectangle scaled back to full resolution, clipped to the image; the output is the
/// tile's own size.
struct DirectTileRegion: Sendable, Equatable {
    let source: PixelRect
    let output: PixelSize

    init(pyramid: Pyramid, level: Int, rect: PixelRect) {
        let scale = 1 << (pyramid.maxLevel - level)
        let x = min(pyramid.width - 1, rect.x * scale), y = min(pyramid.height - 1, rect.y * scale)
        let right = min(pyramid.width, (rect.x + rect.width) * scale)
        let bottom = min(pyramid.height, (rect.y + rect.height) * scale)
        source = PixelRect(x: x, y: y, width: max(1, right - x), height: max(1, bottom - y))
        output = PixelSize(width: rect.width, height: rect.height)
    }
}
