import CVips
import Foundation
import Imaging
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// Over real HTTP: the tiles of the levels between Deep Zoom's (`/images/{id}/between/...`) show what libvips reads
/// from the source at that level's size, in register (closer than the same one pixel out), in JPEG at once and in
/// AVIF once made behind the JPEG stand-in; and bad addresses get their 400 or 404.
@Suite(.serialized) struct BetweenLevelTilesTests {
    static let (width, height) = (2600, 1900)

    /// Edges every few pixels (stripes, a checkerboard) over a gradient: a tile one pixel out of register, or
    /// blurred, is far from the reference.
    static func writePattern(to path: String) throws {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                // Grey (the same in every band): the tiles' 4:2:0 JPEG keeps edges in luma, not in chroma.
                let stripes = (x / 6 + y / 9) % 2 == 0 ? 0 : 120, checks = ((x / 11) ^ (y / 7)) & 1 == 0 ? 0 : 60
                let value = UInt8(10 + stripes + checks + x * 60 / width)
                (pixels[index], pixels[index + 1], pixels[index + 2]) = (value, value, value)
            }
        }
        try VImage.fromPixels(pixels, width: width, height: height, bands: 3).saveJPEG(to: path, quality: 95)
    }

    static let server: Result<TestServer, any Error> = Result {
        let server = try TestServer(label: "between", configure: { $0.rescanSeconds = 3600 }) { folder in
            try writePattern(to: folder + "/pattern.jpg")
        }
        try server.waitUntilBuilt()
        return server
    }

    /// The reference: libvips's reading of the source, resized to the level's size (its linear kernel, as every
    /// region read resamples), cropped to the tile, `dx`/`dy` pixels out of register.
    static func reference(_ level: BetweenLevel, _ pyramid: Pyramid, _ rect: PixelRect, dx: Int = 0, dy: Int = 0) throws -> [UInt8] {
        let server = try server.get()
        let size = level.size(in: pyramid)
        return try VImage.open(server.images + "/pattern.jpg")
            .resize(horizontal: Double(size.width) / Double(width), vertical: Double(size.height) / Double(height),
                    kernel: VIPS_KERNEL_LINEAR)
            .crop(x: rect.x + dx, y: rect.y + dy, width: rect.width, height: rect.height).pixels()
    }

    @Test func jpegTilesAreLibvipsReadingAtTheLevelsSizeInRegister() throws {
        let server = try Self.server.get()
        let record = try #require(server.service.library.record("pattern"))
        let pyramid = try #require(record.pyramid)
        for below in [pyramid.maxLevel - 1, pyramid.maxLevel - 2] {
            for step in BetweenLevel.steps {
                let level = try #require(BetweenLevel(below: below, step: step, in: pyramid))
                let grid = level.tileGrid(in: pyramid)
                for (column, row) in [(0, 0), (1, 1), (grid.columns - 1, grid.rows - 1)] {
                    let path = "/images/pattern/between/\(below)/\(step)/\(column)_\(row).jpeg?v=\(record.version)"
                    let reply = try server.get(path)
                    try #require(reply.status == 200, "\(path): \(reply.status) \(reply.text)")
                    #expect(reply.header("content-type") == "image/jpeg")
                    #expect(reply.header("cache-control")?.contains("immutable") == true, "\(path)")
                    let tile = try IIIFEndToEndTests.Decoded(reply.body)
                    let rect = level.tileRect(column: column, row: row, in: pyramid)
                    #expect(tile.width == rect.width && tile.height == rect.height, "\(path)")
                    let inRegister = TestImages.psnr(tile.pixels, try Self.reference(level, pyramid, rect))
                    #expect(inRegister > 30, "\(path): \(inRegister) dB")
                    let size = level.size(in: pyramid)
                    for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)]
                    where rect.x + dx >= 0 && rect.y + dy >= 0 && rect.x + dx + rect.width <= size.width
                        && rect.y + dy + rect.height <= size.height {
                        let out = TestImages.psnr(tile.pixels, try Self.reference(level, pyramid, rect, dx: dx, dy: dy))
                        #expect(out < inRegister - 3, "\(path): \(out) dB one pixel out against \(inRegister) dB")
                    }
                    // Stored: the next answer is the file, and a client holding it gets a 304.
                    let again = try server.get(path)
                    #expect(again.body == reply.body && again.header("server-timing")?.hasPrefix("tile;desc=stored") == true)
                    let etag = try #require(reply.header("etag"))
                    #expect(try server.get(path, headers: ["If-None-Match": etag]).status == 304)
                }
            }
        }
    }

    @Test func avifTilesStandInAsJPEGThenAreMade() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server.get()
        let record = try #require(server.service.library.record("pattern"))
        let pyramid = try #require(record.pyramid)
        let below = pyramid.maxLevel - 1
        let level = try #require(BetweenLevel(below: below, step: 2, in: pyramid))
        let path = "/images/pattern/between/\(below)/2/2_1.avif?v=\(record.version)"
        let first = try server.get(path)
        try #require(first.status == 200, "\(first.status) \(first.text)")
        #expect(first.header("content-type") == "image/jpeg" && first.header("cache-control") == DerivedFormats.interimCacheControl)
        try InterimFormatTileTests.waitForEncodings(server)
        let made = try server.get(path)
        #expect(made.status == 200 && made.header("content-type") == "image/avif")
        #expect(made.header("cache-control")?.contains("immutable") == true)
        #expect(made.header("etag") != first.header("etag"))
        let tile = try IIIFEndToEndTests.Decoded(made.body)
        let rect = level.tileRect(column: 2, row: 1, in: pyramid)
        #expect(tile.width == rect.width && tile.height == rect.height)
        let psnr = TestImages.psnr(tile.pixels, try Self.reference(level, pyramid, rect))
        #expect(psnr > 28, "\(psnr) dB")
        #expect(made.body.count < first.body.count)
    }

    /// To a client that takes JPEG XL: the stand-in recompressed (the JPEG inside), then the smaller of
    /// the AVIF and the JPEG XL kept beside it, either the tile's picture.
    @Test func aClientThatTakesJPEGXLGetsItWhereSmaller() throws {
        try #require(DeepZoomTileFormat.offered.contains(.avif))
        let server = try Self.server.get()
        let record = try #require(server.service.library.record("pattern"))
        let pyramid = try #require(record.pyramid)
        let below = pyramid.maxLevel - 1
        let level = try #require(BetweenLevel(below: below, step: 1, in: pyramid))
        let path = "/images/pattern/between/\(below)/1/1_2.avif?v=\(record.version)"
        let accept = ["Accept": "image/jxl,image/avif,image/webp,image/*,*/*;q=0.8"]
        let first = try server.get(path, headers: accept)
        try #require(first.status == 200, "\(first.status) \(first.text)")
        #expect(first.header("vary") == "Accept")
        #expect(["image/jxl", "image/jpeg"].contains(first.header("content-type") ?? ""))
        #expect(first.header("cache-control") == DerivedFormats.interimCacheControl)
        let jpeg = try server.get("/images/pattern/between/\(below)/1/1_2.jpeg?v=\(record.version)")
        if first.header("content-type") == "image/jxl" {
            // The same JPEG inside (libjxl decodes its coefficients with its own rounding, not libjpeg-turbo's).
            let same = TestImages.psnr(try IIIFEndToEndTests.Decoded(first.body).pixels, try IIIFEndToEndTests.Decoded(jpeg.body).pixels)
            #expect(same > 45, "\(same) dB")
        }
        try InterimFormatTileTests.waitForEncodings(server)
        let made = try server.get(path, headers: accept)
        let avif = try server.get(path)
        #expect(avif.header("content-type") == "image/avif")
        #expect(["image/jxl", "image/avif"].contains(made.header("content-type") ?? ""), "\(made.header("content-type") ?? "")")
        #expect(made.body.count <= avif.body.count && made.header("cache-control")?.contains("immutable") == true)
        let rect = level.tileRect(column: 1, row: 2, in: pyramid)
        let psnr = TestImages.psnr(try IIIFEndToEndTests.Decoded(made.body).pixels, try Self.reference(level, pyramid, rect))
        #expect(psnr > 28, "\(psnr) dB")
    }

    @Test func badAddressesAreRefusedWithWhy() throws {
        let server = try Self.server.get()
        let record = try #require(server.service.library.record("pattern"))
        let max = try #require(record.pyramid).maxLevel
        let v = "?v=\(record.version)"
        for (path, status) in [
            ("/images/pattern/between/\(max)/1/0_0.jpeg", 400),  // nothing between the deepest level and above it
            ("/images/pattern/between/3/0/0_0.jpeg", 400), ("/images/pattern/between/3/3/0_0.jpeg", 400),
            ("/images/pattern/between/3/x/0_0.jpeg", 400), ("/images/pattern/between/3/01234567891/0_0.jpeg", 400),
            ("/images/pattern/between/\(max - 1)/1/99_0.jpeg", 400), ("/images/pattern/between/99999999999/1/0_0.jpeg", 400),
            ("/images/pattern/between/3/1/0_0.webp", 404), ("/images/pattern/between/3/1/0_0.png", 404),
            ("/images/nosuch/between/3/1/0_0.jpeg", 404),
        ] {
            let reply = try server.get(path + v)
            #expect(reply.status == status, "\(path): \(reply.status) \(reply.text)")
            #expect(reply.json?["message"] as? String != nil, "\(path)")
        }
    }
}
