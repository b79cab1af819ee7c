import Foundation
import HTTPServer

/// Cacheable tiles for viewers that load `/dzi/{id}.dzi` without `?v=` (issue #13, goal 7).
///
/// OpenSeadragon derives tile URLs from the descriptor's URL, so an unversioned descriptor led to
/// unversioned tiles, which must be revalidated on every reuse. Such a descriptor now names the
/// current version's tiles folder in the `Url` attribute of its `Image` element (OpenSeadragon's
/// `DziTileSource` takes `Image.Url` as its tiles URL): `/dzi/{id}/{version}_files/`. Those tiles
/// are immutable for a year; a tile of any other version answers 404, never the new version's
/// bytes, and the descriptor itself stays `no-cache`, so a viewer that loads it again after the
/// source changed is led to the new version's folder. Viewers that ignore `Url` still work: the
/// unversioned tiles are answered as before. The same holds for the WebP and AVIF descriptors
/// (`?format=`): their `Url` is the same folder, whose `.webp` and `.avif` tiles are immutable too
/// (`formatTile` with a version).
extension TilescopeApp {
    func descriptorNamingVersionedTiles(_ record: ImageRecord, _ request: Request) throws -> Reply {
        let etag = TileETag(version: record.version, .descriptor(format: nil, namesTilesFolder: true)).text
        let headers: [(name: String, value: String)] = [
            ("Content-Type", "application/xml"), ("ETag", etag), ("Cache-Control", HTTPCaching.revalidate),
            ("Vary", "Host, X-Forwarded-Host, X-Forwarded-Proto"),
        ]
        if HTTPCaching.notModified(request, etag: etag) { return .now(Response(status: 304, headers: headers)) }
        let path = store.descriptorPath(id: record.id, version: record.version)
        let folder = versionedTilesFolder(record, request), id = record.id
        @Sendable func answer() -> Response? {
            guard let stored = FileManager.default.contents(atPath: path), let text = String(data: stored, encoding: .utf8),
                  let xml = DeepZoomDescriptor.naming(folder, in: text) else { return nil }
            return Response(status: 200, headers: headers, body: .bytes(Array(xml.utf8)))
        }
        let missing = APIError.notFound("the pyramid of \(id) has no descriptor")
        if let response = answer() { return .now(response) }
        guard store.fetchesOnMiss else { throw missing }
        // Kept elsewhere (an object store): fetched on a worker thread, then read as above.
        let store = self.store
        return .later {
            do {
                guard try store.fetch(path), let response = answer() else { return missing.response }
                return response
            } catch {
                return APIError(error).response
            }
        }
    }

    /// `{scheme}://{host}/dzi/{id}/{version}_files/`, the current version's tiles folder, as the client reached
    /// this server: the `Url` of every descriptor loaded without `?v=` (JPEG, WebP, AVIF).
    /// The id is percent-encoded, the version is hex and the host is checked: nothing to escape for XML.
    func versionedTilesFolder(_ record: ImageRecord, _ request: Request) -> String {
        // The tile shape's path up to its level: `/dzi/{id}/{version}_files/`.
        let tile = URLShape.deepZoomVersionedTile.path(.init(strings: [record.id, record.version]))
        return iiif.url(String(tile.dropLast("0/0_0.jpeg".count)), request: request)
    }

    /// The answer for a tile of a version that is not the image's current one.
    static func noSuchVersion(_ id: String, _ version: String) -> APIError {
        APIError.notFound("image \(id.prefix(80)) has no current version \(version.prefix(40)): load /dzi/{id}.dzi again")
    }

    /// The key under which such a tile's answer may be given again without routing (`HotResponses`): the
    /// target without a query, spelt exactly as the descriptor's `Url` writes it. Nil for anything else.
    func hotVersionedTileKey(_ id: String, version: String, level: Int, column: Int, row: Int, _ request: Request,
                             _ generation: UInt64) -> ReuseKey? {
        guard request.query.isEmpty else { return nil }
        let path = URLShape.deepZoomVersionedTile.path(.init(strings: [id, version], level: level, column: column, row: row))
        guard request.rawPath == path else { return nil }
        return ReuseKey(target: path, group: id, generation: generation)
    }

    /// A tile of `/dzi/{id}/{version}_files/`: cacheable for good when `version` is current, 404 otherwise.
    func versionedTile(_ id: String, version: String, level: Int, column: Int, row: Int, _ request: Request,
                       finish: @escaping @Sendable (inout Response) -> Void) throws -> Reply {
        let gone = Self.noSuchVersion(id, version)
        guard library.record(id)?.version == version else { throw gone }
        return try tile(id, level: level, column: column, row: row, request) { response in
            // The source may have changed between the check and the file: the tile's ETag says which version it is.
            guard let etag = response.header("ETag"), TileETag.isTag(etag, ofVersion: version) else {
                response = gone.response
                return
            }
            response.setHeader("Cache-Control", HTTPCaching.immutable)
            finish(&response)
        }
    }
}
