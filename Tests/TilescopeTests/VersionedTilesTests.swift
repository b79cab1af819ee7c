import Foundation
import Imaging
import ScrollGeometry
import Testing
import TestSupport
@testable import Tilescope

/// Issue #13, goal 7: a descriptor loaded without `?v=` names the current version's tiles folder
/// (`Url`), whose tiles are cacheable for good and never answer with another version's bytes.
@Suite(.serialized) struct VersionedTilesTests {
    init() throws { try Vips.start() }

    static func tilesFolder(in descriptor: String) -> String? {
        guard let start = descriptor.range(of: "Url=\"")?.upperBound,
              let end = descriptor[start...].firstIndex(of: "\"") else { return nil }
        return String(descriptor[start..<end])
    }

    @Test func anUnversionedDescriptorLeadsToImmutableTilesOfItsVersionOnly() throws {
        let server = try TestServer(label: "versioned-tiles") { folder in
            try TestImages.writeJPEG(width: 600, height: 400, to: folder + "/scene.jpg", seed: 1)
        }
        try server.waitUntilBuilt()
        let version = try #require(server.service.library.record("scene")?.version)
        let descriptor = try server.get("/dzi/scene.dzi")
        #expect(descriptor.status == 200)
        #expect(descriptor.header("Cache-Control") == HTTPCaching.revalidate)
        let folder = try #require(Self.tilesFolder(in: descriptor.text), "\(descriptor.text)")
        #expect(folder == "http://127.0.0.1/dzi/scene/\(version)_files/")  // the Host the client sent
        // Still a Deep Zoom descriptor: the stored one with the attribute added.
        #expect(descriptor.text.contains("TileSize=\"254\"") && descriptor.text.contains("<Size "))
        // The versioned descriptor (what the API's urls name) is the stored file, unchanged.
        #expect(Self.tilesFolder(in: try server.get("/dzi/scene.dzi?v=\(version)").text) == nil)

        let path = "/dzi/scene/\(version)_files/9/1_0.jpeg"
        let tile = try server.get(path)
        #expect(tile.status == 200)
        #expect(tile.header("Cache-Control") == HTTPCaching.immutable)
        #expect(tile.body == (try server.get("/dzi/scene_files/9/1_0.jpeg")).body)
        let revalidated = try server.get(path, headers: ["If-None-Match": try #require(tile.header("ETag"))])
        #expect(revalidated.status == 304)
        // Another version, an unknown image, a bad tile: clear JSON errors.
        #expect(try server.get("/dzi/scene/0000000000000000_files/9/1_0.jpeg").status == 404)
        #expect(try server.get("/dzi/nothing/\(version)_files/9/1_0.jpeg").status == 404)
        #expect(try server.get("/dzi/scene/\(version)_files/9/x_0.jpeg").status == 400)
        #expect(try server.get("/dzi/scene/\(version)_files/99/0_0.jpeg").status == 400)

        // The source changes: the old folder answers 404 from the moment the new version is known,
        // and the descriptor names the new folder.
        try TestImages.writeJPEG(width: 500, height: 400, to: server.images + "/.next.jpg", seed: 2)
        #expect(rename(server.images + "/.next.jpg", server.images + "/scene.jpg") == 0)
        server.service.sync.sync()
        let next = try #require(server.service.library.record("scene")?.version)
        #expect(next != version)
        #expect(try server.get(path).status != 200)
        try server.waitUntilBuilt()
        #expect(try server.get(path).status == 404)
        let newFolder = try #require(Self.tilesFolder(in: try server.get("/dzi/scene.dzi").text))
        #expect(newFolder.hasSuffix("/dzi/scene/\(next)_files/"))
        #expect(try server.get("/dzi/scene/\(next)_files/9/1_0.jpeg").header("Cache-Control") == HTTPCaching.immutable)
    }

    /// Every format a descriptor offers (`?format=`) leads to the versioned folder, whose tiles in that format
    /// are immutable (issue 37: the WebP descriptor had no `Url` and `/dzi/{id}/{version}_files/L/C_R.webp`
    /// was a 404, so a WebP viewer revalidated every tile).
    @Test(arguments: DeepZoomTileFormat.offeredForEveryImage)
    func everyFormatsDescriptorLeadsToImmutableTiles(format: DeepZoomTileFormat) throws {
        let server = try TestServer(label: "versioned-\(format.rawValue)") { folder in
            try TestImages.writeJPEG(width: 600, height: 400, to: folder + "/scene.jpg", seed: 3)
        }
        try server.waitUntilBuilt()
        let version = try #require(server.service.library.record("scene")?.version)
        let ext = format.rawValue
        let descriptor = try server.get("/dzi/scene.dzi?format=\(ext)")
        #expect(descriptor.status == 200)
        #expect(descriptor.header("Cache-Control") == HTTPCaching.revalidate)
        #expect(descriptor.text.contains("Format=\"\(ext)\"") && descriptor.text.contains("TileSize=\"254\""))
        let folder = try #require(Self.tilesFolder(in: descriptor.text), "\(descriptor.text)")
        #expect(folder == "http://127.0.0.1/dzi/scene/\(version)_files/")
        // The versioned descriptor is immutable itself and needs no Url.
        let versioned = try server.get("/dzi/scene.dzi?format=\(ext)&v=\(version)")
        #expect(versioned.header("Cache-Control") == HTTPCaching.immutable)
        #expect(Self.tilesFolder(in: versioned.text) == nil)

        // As OpenSeadragon asks for it: the folder, `level/column_row.format`, the descriptor's query.
        let tilePath = "/dzi/scene/\(version)_files/9/1_0.\(ext)"
        if format == .avif {
            // Below the deepest level an AVIF is made behind a short-lived JPEG stand-in (never immutable).
            let interim = try server.get(tilePath + "?format=avif")
            #expect(interim.status == 200 && interim.header("Cache-Control") == "public, max-age=10")
            try InterimFormatTileTests.waitForEncodings(server)
        }
        let tile = try server.get(tilePath + "?format=\(ext)")
        #expect(tile.status == 200, "\(tilePath): \(tile.status) \(tile.text.prefix(200))")
        #expect(tile.header("Cache-Control") == HTTPCaching.immutable)
        // A WebP or AVIF no smaller than the tile's JPEG is answered as that JPEG.
        #expect([format.encoded.mediaType, "image/jpeg"].contains(tile.header("content-type") ?? ""))
        let image = try VImage.decoding(tile.body)
        let rect = Pyramid(width: 600, height: 400).tileRect(level: 9, column: 1, row: 0)
        #expect(image.width == rect.width && image.height == rect.height)
        // The same bytes as the unversioned URL, which must be revalidated.
        let unversioned = try server.get("/dzi/scene_files/9/1_0.\(ext)")
        #expect(unversioned.body == tile.body)
        #expect(unversioned.header("Cache-Control") == HTTPCaching.revalidate)
        let etag = try #require(tile.header("ETag"))
        #expect(try server.get(tilePath, headers: ["If-None-Match": etag]).status == 304)
        // Another version, an unknown image, a bad tile: JSON errors.
        let other = try server.get("/dzi/scene/0000000000000000_files/9/1_0.\(ext)")
        #expect(other.status == 404 && other.json?["message"] is String)
        #expect(try server.get("/dzi/nothing/\(version)_files/9/1_0.\(ext)").status == 404)
        #expect(try server.get("/dzi/scene/\(version)_files/99/0_0.\(ext)").status == 400)
        #expect(try server.get("/dzi/scene/\(version)_files/9/9_9.\(ext)").status == 400)
    }

    @Test func theHostTheClientUsedNamesTheFolder() throws {
        let server = try TestServer(label: "versioned-host") { folder in
            try TestImages.writeJPEG(width: 300, height: 200, to: folder + "/a.jpg")
        }
        try server.waitUntilBuilt()
        let reply = try server.get("/dzi/a.dzi", headers: ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "tiles.example.org"])
        #expect(Self.tilesFolder(in: reply.text)?.hasPrefix("https://tiles.example.org/dzi/a/") == true)
        #expect(reply.header("Vary")?.contains("X-Forwarded-Host") == true)
        // A forged host cannot break out of the attribute.
        let forged = try server.get("/dzi/a.dzi", headers: ["X-Forwarded-Host": "x\" onload=\"y"])
        #expect(!forged.text.contains("onload"))
    }
}
