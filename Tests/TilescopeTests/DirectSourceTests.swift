import Foundation
import HTTPServer
import Imaging
import ScrollGeometry
import SeededRandom
import TestSupport
import Testing
@testable import Tilescope

/// A source that already is a pyramid (a tiled pyramidal JPEG TIFF, made here by libvips) is served from its own
/// levels, with no build (issue 39): published at once with its preview, its Deep Zoom tiles and IIIF renders cut
/// from the source's nearest level, every answer against libvips's own reading of the source. Over real HTTP.
@Suite struct DirectSourceTests {
    static let width = 3000, height = 2000

    static let server: TestServer = {
        let server = try! TestServer(label: "direct-sources") { folder in
            let plain = folder + "/../plain.png"
            try SmoothImages.writePNG(width: width, height: height, to: plain, seed: 7)
            let made = try Command.run("/usr/bin/vips", ["tiffsave", plain, folder + "/slide.tif", "--tile", "--pyramid",
                                         "--compression", "jpeg", "--Q", "90", "--tile-width", "256", "--tile-height", "256"])
            guard made.status == 0 else { throw TestFailure("vips tiffsave: \(made.output)") }
            try TestImages.writeJPEG(width: 800, height: 600, to: folder + "/photo.jpg", seed: 3)
            // The slide's picture as a plain PNG, built as any image is: what the viewport API answers for it is
            // what it must answer for the slide served directly.
            try FileManager.default.copyItem(atPath: plain, toPath: folder + "/built.png")
            // A pyramid that says how large its pixels are: 4,000 pixels a millimetre (0.25 µm, a slide's), kept by
            // libvips as a TIFF resolution in pixels per centimetre.
            let measured = folder + "/../measured.v"
            let resolution = try Command.run("/usr/bin/vips", ["copy", plain, measured, "--xres", "4000", "--yres", "4000"])
            guard resolution.status == 0 else { throw TestFailure("vips copy: \(resolution.output)") }
            let saved = try Command.run("/usr/bin/vips", ["tiffsave", measured, folder + "/measured.tif", "--tile", "--pyramid",
                                                          "--compression", "jpeg", "--resunit", "cm"])
            guard saved.status == 0 else { throw TestFailure("vips tiffsave: \(saved.output)") }
            // An Aperio slide with a label (read through OpenSlide, named .svs as an operator's folder file).
            try AperioSlide.write(source: plain, to: folder + "/aperio.svs", micronsPerPixel: 0.5,
                                  label: (label, labelWidth, labelHeight))
            // A Leica SCN and a Hamamatsu NDPI, OpenSlide's too (NDPI's levels a multiple of its 256 x 8 tiles).
            try LeicaSlide.write(source: plain, to: folder + "/leica.scn", micronsPerPixel: 0.5)
            let cropped = folder + "/../ndpi-source.v"
            let crop = try Command.run("/usr/bin/vips", ["crop", plain, cropped, "0", "0", "2048", "1536"])
            guard crop.status == 0 else { throw TestFailure("vips crop: \(crop.output)") }
            try HamamatsuSlide.write(source: cropped, to: folder + "/hamamatsu.ndpi", levels: 4, micronsPerPixel: 0.5)
            // A MIRAX: mirax.mrxs and its folder mirax/ of index and data files, as a scanner leaves them.
            let small = folder + "/../mirax-source.v"
            let smaller = try Command.run("/usr/bin/vips", ["crop", plain, small, "0", "0", "1024", "768"])
            guard smaller.status == 0 else { throw TestFailure("vips crop: \(smaller.output)") }
            try MiraxSlide.write(source: small, to: folder + "/mirax.mrxs", levels: 3, micronsPerPixel: 0.5)
            // A High-Throughput JPEG 2000 codestream (Part 15) of five resolution levels.
            let raw = folder + "/../htj2k-source.raw"
            let rawSaved = try Command.run("/usr/bin/vips", ["rawsave", plain, raw])
            guard rawSaved.status == 0 else { throw TestFailure("vips rawsave: \(rawSaved.output)") }
            try HTJ2KCodestream.write(raw: raw, width: width, height: height, decompositions: 4, to: folder + "/htj2k.j2c")
        }
        try! server.waitUntilBuilt()
        return server
    }()

    var sourcePath: String { Self.server.images + "/slide.tif" }

    /// The slide's label: dark text-like bars on a light card.
    static let labelWidth = 300, labelHeight = 200
    static let label: [UInt8] = (0..<(labelWidth * labelHeight)).flatMap { index -> [UInt8] in
        let (x, y) = (index % labelWidth, index / labelWidth)
        let ink = (y / 20) % 2 == 1 && x > 30 && x < 30 + (y * 7) % 240
        return ink ? [20, 30, 90] : [235, 230, 215]
    }

    /// One page (level) of the source as libvips's tiffload reads it, through the vips tool (`[page=N]`).
    static func page(_ page: Int, of path: String) throws -> VImage { try loaded("\(path)[page=\(page)]") }

    /// What libvips loads of `file` (a file name with load options), copied through the vips tool into memory.
    static func loaded(_ file: String) throws -> VImage {
        let copy = NSTemporaryDirectory() + "tilescope-direct-page-\(UUID().uuidString).v"
        defer { try? FileManager.default.removeItem(atPath: copy) }
        let made = try Command.run("/usr/bin/vips", ["copy", file, copy])
        guard made.status == 0 else { throw TestFailure("vips copy: \(made.output)") }
        let image = try VImage.open(copy)
        return try VImage.fromPixels(try image.pixels(), width: image.width, height: image.height, bands: image.bands)
    }

    /// A reply body decoded by libvips, kept in memory (the temporary file goes at once).
    static func decoded(_ bytes: [UInt8]) throws -> VImage {
        let path = NSTemporaryDirectory() + "tilescope-direct-\(UUID().uuidString)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let image = try VImage.open(path)
        return try VImage.fromPixels(try image.pixels(), width: image.width, height: image.height, bands: image.bands)
    }

    @Test func aPyramidalTIFFIsServedDirectlyAndAPlainImageIsBuilt() throws {
        let server = Self.server
        let slide = try #require(try server.get("/api/images/slide").json)
        #expect(slide["status"] as? String == "ready")
        #expect(slide["served"] as? String == "direct")
        #expect(slide["width"] as? Int == Self.width && slide["height"] as? Int == Self.height)
        let formats = try #require((slide["urls"] as? [String: Any])?["formats"] as? [String: Any])
        #expect(Array(formats.keys) == ["jpeg"])
        let photo = try #require(try server.get("/api/images/photo").json)
        #expect(photo["served"] as? String == "built")
        // Nothing but the descriptor, the preview and the manifest is written for the direct source.
        let version = try #require(slide["version"] as? String)
        let folder = server.data + "/pyramids/slide/" + version
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }
        #expect(Set(files).isSubset(of: ["image.dzi", "preview.jpeg", "pyramid.json"]), "\(files)")
    }

    /// Each Deep Zoom tile is the source's region at the level's scale, as libvips resizes it.
    @Test(arguments: [(12, 0, 0), (12, 11, 7), (11, 3, 2), (10, 2, 1), (8, 0, 0), (3, 0, 0)])
    func tilesAreTheSourcesPixels(level: Int, column: Int, row: Int) throws {
        let server = Self.server
        let reply = try server.get("/dzi/slide_files/\(level)/\(column)_\(row).jpeg")
        #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
        let served = try Self.decoded(reply.body)
        let pyramid = Pyramid(width: Self.width, height: Self.height)
        let rect = pyramid.tileRect(level: level, column: column, row: row)
        #expect(served.width == rect.width && served.height == rect.height)
        // libvips's own reading of the source's level at this scale (the pyramid's pages halve down to 188 px),
        // box-shrunk beyond the coarsest: a tile the size of a few pixels is only checked for its size.
        let factor = 1 << (pyramid.maxLevel - level)
        let page = min(factor.trailingZeroBitCount, 4)
        let scaled = try Self.page(page, of: sourcePath)
        if factor == 1 << page {
            // A page halved with its size rounded down may be a pixel short of the Deep Zoom level: compare what
            // both have.
            let width = min(rect.width, scaled.width - rect.x), height = min(rect.height, scaled.height - rect.y)
            let expected = try scaled.crop(x: rect.x, y: rect.y, width: width, height: height)
            let shown = try served.crop(x: 0, y: 0, width: width, height: height)
            let psnr = TestImages.psnr(try shown.pixels(), try expected.pixels())
            // A tile is a JPEG (quality 85): as close to libvips's reading of the level as libvips's own JPEG of
            // that reading is, within a decibel.
            let ownJPEG = try Self.decoded(try expected.jpegData(quality: 85))
            let bound = TestImages.psnr(try ownJPEG.pixels(), try expected.pixels()) - 1
            #expect(psnr >= bound, "tile \(level)/\(column)_\(row): \(psnr) dB, libvips's own JPEG \(bound + 1) dB")
        }
        // Asked again: the same bytes, from memory.
        let again = try server.get("/dzi/slide_files/\(level)/\(column)_\(row).jpeg")
        #expect(again.body == reply.body)
        #expect(again.header("server-timing")?.contains("desc=direct") != true)
    }

    /// The size of a pixel, when the source says it, in the API (for a scale bar) and as IIIF's physical-dimensions
    /// service; absent when it does not.
    @Test func aPixelsPhysicalSizeIsGivenWhenTheSourceSaysIt() throws {
        let server = Self.server
        let measured = try #require(try server.get("/api/images/measured").json)
        let microns = try #require(measured["micronsPerPixel"] as? [String: Double])
        #expect(abs(microns["x"]! - 0.25) < 1e-9 && abs(microns["y"]! - 0.25) < 1e-9, "\(microns)")
        for version in [3, 2] {
            let info = try #require(try server.get("/iiif/\(version)/measured/info.json").json)
            let service = try #require((info["service"] as? [[String: Any]])?.first)
            #expect(service["profile"] as? String == "http://iiif.io/api/annex/services/physdim")
            #expect(abs((service["physicalScale"] as? Double ?? 0) - 0.00025) < 1e-12)
            #expect(service["physicalUnits"] as? String == "mm")
        }
        let slide = try #require(try server.get("/api/images/slide").json)
        #expect(slide["micronsPerPixel"] == nil)
        #expect((try server.get("/iiif/3/slide/info.json").json)?["service"] == nil)
    }

    @Test func otherTileFormatsAreRefusedWithAReason() throws {
        for path in ["/dzi/slide_files/12/0_0.webp", "/dzi/slide_files/12/0_0.avif", "/images/slide/preview.avif"] {
            let reply = try Self.server.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.text.contains("directly"), "\(path)")
        }
        #expect(try Self.server.get("/images/slide/preview.jpeg").status == 200)
    }

    /// IIIF's tile grid for a direct source is the file's own (256 px tiles, a scale factor per level), and a tile
    /// asked by that grid at a level the file holds is the file's JPEG, sent as stored: pixel for pixel libvips's
    /// reading of that page, and the same bytes however often it is asked. The short tiles at a level's end, other
    /// formats and turned tiles are rendered. Every tile of the grid, sent as stored or rendered, is held in memory
    /// once made and its next request answered from there (`DirectGridTiles`), the same bytes; a mirrored tile is not
    /// a tile of the grid, and is not held.
    @Test func iiifTilesAreTheSourcesOwnTilesSentAsStored() throws {
        let server = Self.server
        for version in [3, 2] {
            let info = try #require(try server.get("/iiif/\(version)/slide/info.json").json)
            let tiles = try #require((info["tiles"] as? [[String: Any]])?.first)
            #expect(tiles["width"] as? Int == 256 && tiles["height"] as? Int == 256, "\(tiles)")
            #expect(tiles["scaleFactors"] as? [Int] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096])
        }
        // A built image keeps its Deep Zoom grid.
        let photo = try #require(try server.get("/iiif/3/photo/info.json").json)
        #expect(((photo["tiles"] as? [[String: Any]])?.first?["width"] as? Int) == 254)
        for (page, column, row) in [(0, 0, 0), (0, 3, 2), (1, 2, 1), (2, 1, 0), (1, 4, 2)] {
            let scale = 1 << page, side = 256 << page
            let path = "/iiif/3/slide/\(column * side),\(row * side),\(side),\(side)/256,/0/default.jpg"
            let first = try server.get(path), again = try server.get(path)
            #expect(first.status == 200 && again.status == 200, "\(path)")
            let firstTiming = first.header("server-timing") ?? ""
            #expect(firstTiming.contains("tile;desc=passed") || firstTiming.contains("tile;desc=held"), "\(path): \(firstTiming)")
            #expect(again.header("server-timing")?.contains("tile;desc=held") == true, "\(path): \(again.header("server-timing") ?? "")")
            #expect(first.body == again.body, "\(path)")
            let served = try Self.decoded(again.body)
            let expected = try Self.page(page, of: sourcePath).crop(x: column * 256, y: row * 256, width: 256, height: 256)
            #expect(try served.pixels() == expected.pixels(), "\(path) at scale \(scale)")
        }
        // Level 1 is 1500 wide: its sixth column of tiles is 220 px, cut short, so made; a PNG and a mirrored tile too.
        for (path, held) in [("/iiif/3/slide/2560,0,440,512/220,/0/default.jpg", true),
                             ("/iiif/3/slide/0,0,256,256/256,/0/default.png", true),
                             ("/iiif/3/slide/0,0,256,256/256,/!0/default.jpg", false)] {
            let reply = try server.get(path), again = try server.get(path)
            #expect(reply.status == 200 && again.status == 200, "\(path)")
            #expect(reply.header("server-timing")?.contains("desc=passed") != true, "\(path)")
            #expect(again.header("server-timing")?.contains("tile;desc=held") == held, "\(path): \(again.header("server-timing") ?? "")")
            #expect(reply.body == again.body, "\(path)")
        }
    }

    /// A slide's associated images are JPEGs of their own, listed in the API with their sizes and URLs, read through
    /// OpenSlide's attached images (never its crashing `associated=`), and the slide's own stored tiles are passed
    /// through too.
    @Test func aSlidesLabelIsAnImageOfItsOwn() throws {
        let server = Self.server
        let slide = try #require(try server.get("/api/images/aperio").json)
        #expect(slide["served"] as? String == "direct")
        let listed = try #require(slide["associatedImages"] as? [[String: Any]])
        #expect(listed.count == 1)
        let label = try #require(listed.first)
        #expect(label["name"] as? String == "label" && label["width"] as? Int == Self.labelWidth
                && label["height"] as? Int == Self.labelHeight, "\(label)")
        let url = try #require(label["url"] as? String)
        #expect(url == "/images/aperio/associated/label.jpeg?v=\(slide["version"] as? String ?? "")")
        let reply = try server.get(url)
        #expect(reply.status == 200 && reply.header("content-type") == "image/jpeg")
        #expect(reply.header("cache-control")?.contains("immutable") == true)
        let served = try Self.decoded(reply.body)
        #expect(served.width == Self.labelWidth && served.height == Self.labelHeight && served.bands == 3)
        #expect(TestImages.psnr(try served.pixels(), Self.label) >= 30)
        let unknown = try server.get("/images/aperio/associated/macro.jpeg")
        #expect(unknown.status == 404 && unknown.text.contains("label"), "\(unknown.text)")
        #expect(try server.get("/images/aperio/associated/..%2Fpyramid.jpeg").status == 404)
        let none = try server.get("/images/photo/associated/label.jpeg")
        #expect(none.status == 404 && none.text.contains("no associated images"))
        #expect((try server.get("/api/images/slide").json)?["associatedImages"] == nil)
        // Its Presentation manifest paints the slide, then the label on a Canvas of its own; the pixel size is stated.
        let manifest = try #require(try server.get("/iiif/presentation/aperio/manifest.json").json)
        let canvases = try #require(manifest["items"] as? [[String: Any]])
        #expect(canvases.count == 2)
        let labelCanvas = canvases[1]
        #expect(labelCanvas["width"] as? Int == Self.labelWidth && labelCanvas["height"] as? Int == Self.labelHeight)
        let painted = ((labelCanvas["items"] as? [[String: Any]])?.first?["items"] as? [[String: Any]])?.first?["body"] as? [String: Any]
        #expect((painted?["id"] as? String)?.hasSuffix(url) == true, "\(painted ?? [:])")
        let metadata = (manifest["metadata"] as? [[String: Any]]) ?? []
        #expect(metadata.contains { (($0["value"] as? [String: [String]])?["en"]?.first) == "0.5 x 0.5 µm" }, "\(metadata)")
        // The slide's levels are OpenSlide's, its tiles the file's JPEGs: IIIF's grid is theirs, and sent as stored.
        let info = try #require(try server.get("/iiif/3/aperio/info.json").json)
        #expect(((info["tiles"] as? [[String: Any]])?.first?["width"] as? Int) == 256)
        let path = "/iiif/3/aperio/512,512,512,512/256,/0/default.jpg"
        let first = try server.get(path), tile = try server.get(path)
        #expect(first.status == 200 && first.header("server-timing")?.contains("tile;desc=passed") == true)
        #expect(tile.status == 200 && tile.header("server-timing")?.contains("tile;desc=held") == true)
        #expect(first.body == tile.body)
    }

    /// OpenSlide's level `level` of `path` as libvips's openslideload reads it, flattened on white.
    static func openslideLevel(_ level: Int, of path: String) throws -> VImage {
        let image = try loaded("\(path)[level=\(level)]")
        return image.bands == 4 ? try image.flatten() : image
    }

    /// A Leica SCN, a Hamamatsu NDPI and a MIRAX (the tests' own, `LeicaSlide`, `HamamatsuSlide`, `MiraxSlide`) are
    /// served directly from OpenSlide's levels: an IIIF region asked at a level's scale is that level's pixels as
    /// libvips's `openslideload level=N` reads them, and a Deep Zoom tile is served.
    @Test(arguments: [("leica", "scn"), ("hamamatsu", "ndpi"), ("mirax", "mrxs")])
    func otherVendorsSlidesAreServedFromTheirLevels(_ name: String, _ suffix: String) throws {
        let server = Self.server, path = server.images + "/\(name).\(suffix)"
        let slide = try #require(try server.get("/api/images/\(name)").json)
        #expect(slide["status"] as? String == "ready" && slide["served"] as? String == "direct", "\(slide)")
        let level0 = try Self.openslideLevel(0, of: path)
        #expect(slide["width"] as? Int == level0.width && slide["height"] as? Int == level0.height)
        let microns = try #require(slide["micronsPerPixel"] as? [String: Double])
        #expect(abs(microns["x"]! - 0.5) < 1e-9 && abs(microns["y"]! - 0.5) < 1e-9, "\(microns)")
        for level in 0..<(name == "mirax" ? 3 : 4) {
            let (x, y, width, height) = (37, 21, 200, 120)
            let served = try Self.region(of: name, x: x, y: y, width: width, height: height, level: level)
            let expected = try Self.openslideLevel(level, of: path).crop(x: x, y: y, width: width, height: height)
            let psnr = TestImages.psnr(try served.pixels(), try expected.pixels())
            #expect(psnr >= 40, "\(name) level \(level): \(psnr) dB")
        }
        let tile = try server.get("/dzi/\(name)_files/9/1_0.jpeg")
        #expect(tile.status == 200 && tile.header("content-type") == "image/jpeg", "\(tile.text)")
    }

    /// The IIIF region `x, y, width, height` of level `level` (its pixels, at the level's scale) as PNG, decoded,
    /// checked to be 200 and `width` x `height` in RGB.
    static func region(of id: String, x: Int, y: Int, width: Int, height: Int, level: Int) throws -> VImage {
        let scale = 1 << level
        let region = "\(x * scale),\(y * scale),\(width * scale),\(height * scale)"
        let reply = try server.get("/iiif/3/\(id)/\(region)/\(width),/0/default.png")
        #expect(reply.status == 200, "\(id) level \(level): \(reply.text)")
        let served = try decoded(reply.body)
        #expect(served.width == width && served.height == height && served.bands == 3)
        return served
    }

    /// A High-Throughput JPEG 2000 codestream (the tests' own, `HTJ2KCodestream`) is served directly from its
    /// resolution levels (libvips's `jp2kload page=N`, OpenJPEG, which decodes Part 15): an IIIF region asked at a
    /// level's scale is libvips's reading of the full resolution shrunk to it. Not the level's own pixels: a
    /// wavelet's reduced level samples the picture half a pixel (of the full resolution, times 2^N - 1) off a
    /// box's centres, and Tilescope puts it back in register (`SourceLevel.jpeg2000Offset`); compared with
    /// `page=N` as decoded, levels 3 and 4 are 35 and 29 dB. Levels 0 to 3, as for OpenSlide's slides: at 1/16 the
    /// codestream's own level (its wavelet's low-pass, what a level of the source is) and libvips's resize of the
    /// full resolution differ by themselves (35.7 dB here). A Deep Zoom tile is served.
    @Test func anHTJ2KCodestreamIsServedFromItsResolutionLevels() throws {
        let server = Self.server, path = server.images + "/htj2k.j2c"
        #expect(try HTJ2KCodestream.declaresHighThroughput(path), "the codestream is not HTJ2K")
        let record = try #require(try server.get("/api/images/htj2k").json)
        #expect(record["status"] as? String == "ready" && record["served"] as? String == "direct", "\(record)")
        #expect(record["width"] as? Int == Self.width && record["height"] as? Int == Self.height)
        for level in 0..<4 {
            let scale = 1 << level
            let (x, y, width, height) = (37, 21, 120, 80)
            let served = try Self.region(of: "htj2k", x: x, y: y, width: width, height: height, level: level)
            let expected = try Self.loaded(path).crop(x: x * scale, y: y * scale, width: width * scale, height: height * scale)
                .resize(horizontal: 1 / Double(scale), vertical: 1 / Double(scale))
            let psnr = TestImages.psnr(try served.pixels(), try expected.pixels())
            #expect(psnr >= 38, "level \(level): \(psnr) dB")
        }
        let tile = try server.get("/dzi/htj2k_files/9/1_0.jpeg")
        #expect(tile.status == 200 && tile.header("content-type") == "image/jpeg", "\(tile.text)")
    }

    /// The viewport API cannot tell a source served from its own levels from the same picture built: over seeded
    /// viewports (sizes, zoomScales, offsets, insets, DPRs), the level, the tiles, their frames, the zoom scales and
    /// whether the preview suffices are the same for `slide` (direct) and `built` (a pyramid of the same pixels).
    @Test func theViewportAPIAnswersADirectSourceAsABuiltOne() throws {
        let server = Self.server
        #expect(try server.get("/api/images/slide").json?["served"] as? String == "direct")
        #expect(try server.get("/api/images/built").json?["served"] as? String == "built")
        var random = SeededGenerator(seed: 39)
        let compared = ["level", "tiles", "frames", "zoomScale", "minimumZoomScale", "maximumZoomScale", "resolution",
                        "contentSize", "contentOffset"]
        for _ in 0..<40 {
            let width = Int.random(in: 200...1600, using: &random), height = Int.random(in: 200...1200, using: &random)
            let zoomScale = Double(Int.random(in: 5...400, using: &random)) / 100, scale = [1, 2, 3][Int.random(in: 0...2, using: &random)]
            let query = "width=\(width)&height=\(height)&scale=\(scale)&zoomScale=\(zoomScale)"
                + "&offsetX=\(Int.random(in: -200...6000, using: &random))&offsetY=\(Int.random(in: -200...4000, using: &random))"
            let direct = try #require(try server.get("/api/images/slide/viewport?\(query)").json, "\(query)")
            let built = try #require(try server.get("/api/images/built/viewport?\(query)").json, "\(query)")
            #expect(direct["level"] != nil && direct["tiles"] != nil && direct["zoomScale"] != nil, "\(direct)")
            for key in compared {
                let a = direct[key].map { try? JSONSerialization.data(withJSONObject: ["v": $0], options: .sortedKeys) }
                let b = built[key].map { try? JSONSerialization.data(withJSONObject: ["v": $0], options: .sortedKeys) }
                #expect(a == b, "\(key) differs for \(query)")
            }
        }
    }

    @Test func iiifRegionsComeFromTheSource() throws {
        let reply = try Self.server.get("/iiif/3/slide/1000,500,1200,800/600,/0/default.png")
        #expect(reply.status == 200)
        let served = try Self.decoded(reply.body)
        #expect(served.width == 600 && served.height == 400)
        let expected = try VImage.open(sourcePath).crop(x: 1000, y: 500, width: 1200, height: 800).resize(horizontal: 0.5, vertical: 0.5)
        #expect(TestImages.psnr(try served.pixels(), try expected.pixels()) >= 35)
        // Decoded from the file's JPEG tiles (`StoredTileRegion`), which are then kept, counted and bounded.
        let metrics = try Self.server.get("/metrics").text
        let line = try #require(metrics.split(separator: "\n").first { $0.hasPrefix("tilescope_decoded_source_tiles_bytes ") })
        let held = try #require(Double(line.split(separator: " ")[1]))
        #expect(held > 0 && held <= Double(DecodedSourceTiles.defaultLimit))
    }
}
