import Foundation
import ScrollGeometry
import Testing
import TestSupport
@testable import Imaging

/// Sources that already are pyramids, made here with the `vips` tools: which levels a probe finds, regions read
/// from them against libvips's own reading of the full resolution, and reads from many threads at once.
@Suite struct PyramidalSourceTests {
    static let width = 3000, height = 2000

    /// The suite's files, made once (a few seconds) and shared by its tests.
    static let made: Result<Files, TestFailure> = {
        do { return .success(try Files.make()) } catch { return .failure(TestFailure("making the sources: \(error)")) }
    }()

    struct Files: Sendable {
        var pages = "", subIFDs = "", omeTIFF = "", bigTIFF = "", jpeg2000 = "", htj2k = "", slide = "", leica = "", hamamatsu = "", mirax = ""
        var jpeg = "", png = "", striped = "", singleTiledPage = "", pagesOfOneSize = ""

        static func make() throws -> Files {
            let folder = try TestScratch.folder("pyramidal-sources")
            let raw = folder + "/smooth.raw", source = folder + "/smooth.v"
            try Data(smooth(width: width, height: height)).write(to: URL(fileURLWithPath: raw))
            try vips("rawload", raw, folder + "/multiband.v", "\(width)", "\(height)", "3")
            try vips("copy", folder + "/multiband.v", source, "--interpretation", "srgb")
            var files = Files()
            // Quality 90: at Q75 the coarsest level's own JPEG losses (its waves 16 times denser, ringing where the
            // image ends inside a tile) are 33 dB, and would hide what this suite measures, the reading.
            let pyramid = ["--tile", "--pyramid", "--compression", "jpeg", "--Q", "90", "--tile-width", "256", "--tile-height", "256"]
            files.pages = folder + "/pages.tif"
            try vips(["tiffsave", source, files.pages] + pyramid)
            files.subIFDs = folder + "/subifds.tif"
            try vips(["tiffsave", source, files.subIFDs, "--subifd"] + pyramid)
            // An OME-TIFF: the same SubIFD pyramid (OME-TIFF's own layout for pyramids) whose first ImageDescription
            // is OME-XML naming one RGB plane, as microscopy software writes it.
            files.omeTIFF = folder + "/smooth.ome.tif"
            try FileManager.default.copyItem(atPath: files.subIFDs, toPath: files.omeTIFF)
            try AperioSlide.run("/usr/bin/tiffset", ["-d", "0", "-s", "270", omeXML(width: width, height: height), files.omeTIFF])
            files.bigTIFF = folder + "/big.tif"
            try vips(["tiffsave", source, files.bigTIFF, "--bigtiff"] + pyramid)
            files.jpeg2000 = folder + "/smooth.jp2"
            try vips("jp2ksave", source, files.jpeg2000, "--tile-width", "256", "--tile-height", "256")
            files.htj2k = folder + "/smooth.j2c"
            try HTJ2KCodestream.write(raw: raw, width: width, height: height, decompositions: 4, to: files.htj2k)
            files.slide = folder + "/slide.svs"
            let label = smooth(width: 300, height: 200).map { 255 - $0 }
            try AperioSlide.write(source: source, to: files.slide, micronsPerPixel: 0.25,
                                  label: (label, 300, 200))
            files.leica = folder + "/slide.scn"
            try LeicaSlide.write(source: source, to: files.leica, micronsPerPixel: 0.25)
            // NDPI's levels are cut at restart markers into tiles of 256 x 8: a size they divide at every level.
            let cropped = folder + "/smooth-2048.v"
            try vips("crop", source, cropped, "0", "0", "2048", "1536")
            files.hamamatsu = folder + "/slide.ndpi"
            try HamamatsuSlide.write(source: cropped, to: files.hamamatsu, levels: 4, micronsPerPixel: 0.25)
            // MIRAX's camera images are 256 x 256: a smaller crop keeps its few dozen JPEGs quick to make.
            let small = folder + "/smooth-1024.v"
            try vips("crop", source, small, "0", "0", "1024", "768")
            files.mirax = folder + "/slide.mrxs"
            try MiraxSlide.write(source: small, to: files.mirax, levels: 3, micronsPerPixel: 0.25)
            files.jpeg = folder + "/plain.jpg"
            try vips("jpegsave", source, files.jpeg)
            files.png = folder + "/plain.png"
            try vips("crop", source, files.png, "0", "0", "600", "400")
            files.striped = folder + "/striped.tif"
            try vips("tiffsave", source, files.striped, "--compression", "jpeg")
            files.singleTiledPage = folder + "/single.tif"
            try vips("tiffsave", source, files.singleTiledPage, "--tile", "--compression", "jpeg")
            // Two tiled pages of one size (a document of two pages): pages, but not levels.
            let twoPages = folder + "/two-pages.v"
            try vips("join", source, source, twoPages, "vertical")  // (8.14's arrayjoin of one image twice crashes)
            try AperioSlide.setFields(of: twoPages, [("gint", "page-height", "\(height)")])
            files.pagesOfOneSize = folder + "/two-pages.tif"
            try vips("tiffsave", twoPages, files.pagesOfOneSize, "--tile", "--compression", "jpeg")
            return files
        }

        /// Waves of 300 to 700 pixels in each band: smooth like a photograph (JPEG keeps it well), with enough
        /// gradient everywhere for a pixel's shift to show, and nothing finer than the coarsest level tested keeps.
        static func smooth(width: Int, height: Int) -> [UInt8] {
            func wave(_ count: Int, _ period: Double, _ amplitude: Double, _ phase: Double = 0) -> [Double] {
                (0..<count).map { amplitude * sin(2 * Double.pi * Double($0) / period + phase) }
            }
            let redX = wave(width, 700, 50), redY = wave(height, 450, 40, 1), redXY = wave(width + height, 420, 25)
            let greenX = wave(width, 330, 30), greenXY = wave(width + height, 520, 60, 2)
            let blueY = wave(height, 300, 50), blueXY = wave(2 * width + height, 700, 30, 0.5)
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 3
                    pixels[i] = UInt8(128 + redX[x] + redY[y] + redXY[x + y])
                    pixels[i + 1] = UInt8(128 + greenX[x] + greenXY[x - y + height - 1])
                    pixels[i + 2] = UInt8(128 + blueY[y] + blueXY[2 * x + y])
                }
            }
            return pixels
        }
    }

    static func vips(_ arguments: String...) throws { try vips(arguments) }
    static func vips(_ arguments: [String]) throws { try AperioSlide.run("/usr/bin/vips", arguments) }

    /// A header field as `vipsheader` prints it, for the levels a file holds by libvips's own account.
    static func field(_ name: String, of file: String) throws -> Int {
        let outcome = try Command.run("/usr/bin/vipsheader", ["-f", name, file])
        guard outcome.status == 0, let value = Double(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw TestFailure("vipsheader -f \(name) \(file): \(outcome.output)") }
        return Int(value)
    }

    static func sizes(_ source: PyramidalSource) -> [[Int]] { source.levels.map { [$0.width, $0.height] } }

    // MARK: Probing

    @Test func tiffPagesAreLevelsWithJPEGTiles() throws {
        let files = try Self.made.get()
        for file in [files.pages, files.bigTIFF] {
            let source = try #require(try PyramidalSource.probe(path: file))
            #expect(source.format == .tiffPages)
            let pages = try Self.field("n-pages", of: file)
            let expected = try (0..<pages).map { page in
                try ["width", "height"].map { try Self.field($0, of: "\(file)[page=\(page)]") }
            }
            #expect(pages == 5)
            #expect(Self.sizes(source) == expected)
            #expect(source.levels.map(\.load) == (0..<pages).map { .tiffPage($0) })
            #expect(source.levels.map(\.downsample) == [1, 2, 4, 8, 16])
            #expect(source.levels.allSatisfy { $0.tiles?.width == 256 && $0.tiles?.height == 256 && $0.tiles?.isJPEG == true })
            #expect(source.levels.allSatisfy { $0.tiles?.passthrough != nil })
            // libvips writes 10 pixels a centimetre when nothing says otherwise: no measurement.
            #expect(source.micronsPerPixel == nil)
            #expect(source.associatedImages.isEmpty)
        }
    }

    /// A SubIFD pyramid's levels are its SubIFDs; an OME-TIFF's too, its OME-XML description notwithstanding.
    @Test(arguments: ["subIFDs", "omeTIFF"])
    func tiffSubIFDsAreLevels(_ name: String) throws {
        let files = try Self.made.get()
        let file = name == "omeTIFF" ? files.omeTIFF : files.subIFDs
        if name == "omeTIFF" {
            #expect(try Command.run("/usr/bin/vipsheader", ["-f", "image-description", file]).output.contains("<OME xmlns="))
        }
        let source = try #require(try PyramidalSource.probe(path: file))
        #expect(source.format == .tiffSubIFDs)
        let subIFDs = try Self.field("n-subifds", of: file)
        let expected = try [[Self.field("width", of: file), Self.field("height", of: file)]] + (0..<subIFDs).map { index in
            try ["width", "height"].map { try Self.field($0, of: "\(file)[subifd=\(index)]") }
        }
        #expect(subIFDs == 4)
        #expect(Self.sizes(source) == expected)
        #expect(source.levels.map(\.load) == [.tiffPage(0)] + (0..<subIFDs).map { .tiffSubIFD($0) })
    }

    /// The least OME-XML for one interleaved RGB plane of `width` x `height` in IFD 0.
    static func omeXML(width: Int, height: Int) -> String {
        #"<?xml version="1.0" encoding="UTF-8"?><OME xmlns="http://www.openmicroscopy.org/Schemas/OME/2016-06">"#
            + #"<Image ID="Image:0"><Pixels ID="Pixels:0" DimensionOrder="XYCZT" Type="uint8" "#
            + #"SizeX="\#(width)" SizeY="\#(height)" SizeC="3" SizeZ="1" SizeT="1">"#
            + #"<Channel ID="Channel:0:0" SamplesPerPixel="3"/><TiffData IFD="0" PlaneCount="1"/></Pixels></Image></OME>"#
    }

    @Test func anAperioSlideIsReadThroughOpenSlide() throws {
        let file = try Self.made.get().slide
        let source = try #require(try PyramidalSource.probe(path: file))
        #expect(source.format == .openslide)
        let count = try Self.field("openslide.level-count", of: file)
        let expected = try (0..<count).map { level in
            try ["width", "height"].map { try Self.field("openslide.level[\(level)].\($0)", of: file) }
        }
        #expect(count == 5)
        #expect(Self.sizes(source) == expected)
        #expect(source.levels.map(\.load) == (0..<count).map { .openslide(level: $0) })
        // OpenSlide says 16.02 for the last (187 of 3000 pixels): the level is the image halved four times.
        #expect(source.levels.map(\.downsample) == [1, 2, 4, 8, 16])
        #expect(source.levels.allSatisfy { $0.tiles?.isJPEG == true && $0.tiles?.width == 256 })
        let microns = try #require(source.micronsPerPixel)
        #expect(microns.x == 0.25 && microns.y == 0.25)
        #expect(source.associatedImages == ["label"])
    }

    /// A Leica SCN, a Hamamatsu NDPI and a MIRAX (written here: `LeicaSlide`, `HamamatsuSlide`, `MiraxSlide`) are
    /// what OpenSlide 3.4.1 takes for its `leica`, `hamamatsu` and `mirax` vendors, and their levels are OpenSlide's: a region read at each
    /// level's own scale is, in register, libvips's `openslideload level=N` of that region.
    @Test(arguments: ["leica", "hamamatsu", "mirax"])
    func otherVendorsSlidesAreReadThroughOpenSlide(_ vendor: String) throws {
        let files = try Self.made.get()
        let file = ["leica": files.leica, "hamamatsu": files.hamamatsu, "mirax": files.mirax][vendor]!
        let properties = try Command.run("/usr/bin/openslide-show-properties", [file])
        #expect(properties.status == 0 && properties.output.contains("openslide.vendor: '\(vendor)'"), "\(properties.output)")
        let source = try #require(try PyramidalSource.probe(path: file))
        #expect(source.format == .openslide)
        let count = try Self.field("openslide.level-count", of: file)
        let expected = try (0..<count).map { level in
            try ["width", "height"].map { try Self.field("openslide.level[\(level)].\($0)", of: file) }
        }
        // NDPI's 4 JPEGs, and 3 more OpenSlide makes of the smallest by libjpeg's scaling (1/2, 1/4, 1/8).
        #expect(count == ["leica": 5, "hamamatsu": 7, "mirax": 3][vendor])
        #expect(Self.sizes(source) == expected)
        #expect(source.levels.map(\.load) == (0..<count).map { .openslide(level: $0) })
        #expect(source.levels.map(\.downsample) == (0..<count).map { Double(1 << $0) })
        let microns = try #require(source.micronsPerPixel)
        #expect(abs(microns.x - 0.25) < 1e-9 && abs(microns.y - 0.25) < 1e-9, "\(microns)")
        for (index, level) in source.levels.enumerated() {
            let scale = 1 << index
            let (x, y) = (level.width / 4 + 3, level.height / 4 + 5)
            let (width, height) = (min(300, level.width / 2), min(200, level.height / 2))
            let region = PixelRect(x: x * scale, y: y * scale, width: width * scale, height: height * scale)
            let size = PixelSize(width: width, height: height)
            #expect(source.plan(region, size: size).level == index, "\(vendor) level \(index)")
            let got = try source.read(region, size: size)
            #expect(got.width == width && got.height == height && got.bands == 3)
            let expected = try Self.openslideLevel(index, of: file).crop(x: x, y: y, width: width, height: height).pixels()
            Self.expectInRegister(try got.pixels(), expected, size: size, "\(vendor) level \(index)")
        }
    }

    /// OpenSlide's level `level` of `file` as libvips's openslideload reads it (RGBA, flattened on white), through
    /// the vips tool (`[level=N]`).
    static func openslideLevel(_ level: Int, of file: String) throws -> VImage {
        let folder = try TestScratch.folder("openslide-level")
        try vips("copy", "\(file)[level=\(level)]", folder + "/level.v")
        let image = try VImage.open(folder + "/level.v")
        return image.bands == 4 ? try image.flatten() : image
    }

    /// The same slide named `.tif`, as an upload could be: OpenSlide (an untrusted loader) is never used for it,
    /// and libvips's trusted tiffload reads its tiled pages as its levels.
    @Test func aSlideNamedAsATIFFIsNeverReadThroughOpenSlide() throws {
        let slide = try Self.made.get().slide
        let renamed = (slide as NSString).deletingPathExtension + "-as-upload.tif"
        try? FileManager.default.removeItem(atPath: renamed)
        try FileManager.default.copyItem(atPath: slide, toPath: renamed)
        defer { try? FileManager.default.removeItem(atPath: renamed) }
        let source = try #require(try PyramidalSource.probe(path: renamed))
        #expect(source.format == .tiffPages)
        let original = try PyramidalSource.probe(path: slide)
        #expect(source.levels.count == 5 && source.width == original?.width)
        #expect(!PyramidalSource.untrustedLoaderExtensions.contains("tif"))
    }

    /// A JPEG 2000's resolution levels are its levels; High-Throughput JPEG 2000's (Part 15, which OpenJPEG 2.5
    /// decodes) too.
    @Test(arguments: ["jpeg2000", "htj2k"])
    func aJPEG2000sResolutionsAreLevels(_ name: String) throws {
        let files = try Self.made.get()
        let file = name == "htj2k" ? files.htj2k : files.jpeg2000
        if name == "htj2k" { #expect(try HTJ2KCodestream.declaresHighThroughput(file), "the codestream is not HTJ2K") }
        let source = try #require(try PyramidalSource.probe(path: file))
        #expect(source.format == .jpeg2000)
        let pages = try Self.field("n-pages", of: file)
        let expected = try (0..<pages).map { page in
            try ["width", "height"].map { try Self.field($0, of: "\(file)[page=\(page)]") }
        }
        #expect(pages == 5)
        #expect(Self.sizes(source) == expected)
        #expect(source.levels.map(\.load) == (0..<pages).map { .jpeg2000(reduction: $0) })
        #expect(source.levels.allSatisfy { $0.tiles?.isJPEG == false })
    }

    @Test func sourcesThatAreNoPyramidProbeAsNil() throws {
        let files = try Self.made.get()
        for file in [files.jpeg, files.png, files.striped, files.singleTiledPage, files.pagesOfOneSize] {
            #expect(try PyramidalSource.probe(path: file) == nil, "\(file)")
        }
        #expect(try Self.field("n-pages", of: files.pagesOfOneSize) == 2)
    }

    // MARK: Reading

    /// Regions and output sizes, with the level each must come from.
    static let cases: [(region: PixelRect, size: PixelSize, level: Int)] = [
        (PixelRect(x: 0, y: 0, width: width, height: height), PixelSize(width: 187, height: 125), 4),  // the coarsest
        (PixelRect(x: 1000, y: 600, width: 512, height: 384), PixelSize(width: 512, height: 384), 0),  // full resolution
        (PixelRect(x: 256, y: 256, width: 1024, height: 1024), PixelSize(width: 256, height: 256), 2),
        (PixelRect(x: 2488, y: 1488, width: 512, height: 512), PixelSize(width: 128, height: 128), 2),  // to the edges
        (PixelRect(x: 2800, y: 1900, width: 200, height: 100), PixelSize(width: 200, height: 100), 0),  // to the edges
        (PixelRect(x: 333, y: 217, width: 901, height: 655), PixelSize(width: 300, height: 218), 1),  // unaligned
        (PixelRect(x: 100, y: 900, width: 60, height: 40), PixelSize(width: 120, height: 80), 0),  // enlarged
    ]

    /// libvips's own reading of `region` at `size`: the file's full resolution (its page 0, OpenSlide's level 0
    /// on white, the codestream's whole resolution) cropped and resized.
    /// An enlargement is libvips's affine with the centre of each output pixel on its place in the source:
    /// libvips 8.14's `resize` enlarges a quarter of a source pixel off it (`libvipsResizeEnlargesOffCentre`).
    static func reference(_ file: String, _ region: PixelRect, _ size: PixelSize) throws -> [UInt8] {
        var image = try VImage.open(file)
        if image.bands == 4 { image = try image.flatten() }
        var cut = try image.crop(x: region.x, y: region.y, width: region.width, height: region.height)
        if size.width > region.width {
            let folder = try TestScratch.folder("enlarged")
            try Data(cut.pngData()).write(to: URL(fileURLWithPath: folder + "/cut.png"))
            let scale = Double(size.width) / Double(region.width)
            try vips("affine", folder + "/cut.png", folder + "/enlarged.png", "\(scale) 0 0 \(scale)",
                     "--interpolate", "bicubic", "--extend", "copy", "--oarea", "0 0 \(size.width) \(size.height)",
                     "--idx", "\(0.5 - 0.5 / scale)", "--idy", "\(0.5 - 0.5 / scale)")
            return try VImage.open(folder + "/enlarged.png").pixels()
        }
        if size.width != region.width || size.height != region.height {
            cut = try cut.resize(horizontal: Double(size.width) / Double(region.width),
                                 vertical: Double(size.height) / Double(region.height))
            cut = try cut.crop(x: 0, y: 0, width: size.width, height: size.height)
        }
        return try cut.pixels()
    }

    @Test(arguments: ["pages", "subIFDs", "omeTIFF", "bigTIFF", "slide", "leica", "jpeg2000", "htj2k"])
    func readsMatchLibvipsOnTheFullResolution(_ name: String) throws {
        let files = try Self.made.get()
        let file = [("pages", files.pages), ("subIFDs", files.subIFDs), ("omeTIFF", files.omeTIFF), ("bigTIFF", files.bigTIFF),
                    ("slide", files.slide), ("leica", files.leica), ("jpeg2000", files.jpeg2000),
                    ("htj2k", files.htj2k)].first { $0.0 == name }!.1
        let source = try #require(try PyramidalSource.probe(path: file))
        for (region, size, level) in Self.cases {
            #expect(source.plan(region, size: size).level == level, "\(name) \(region) -> \(size)")
            let image = try source.read(region, size: size)
            #expect(image.width == size.width && image.height == size.height && image.bands == 3)
            let got = try image.pixels()
            let expected = try Self.reference(file, region, size)
            Self.expectInRegister(got, expected, size: size, "\(name) \(region) -> \(size)")
        }
    }

    /// A read that is exactly one stored tile of a level (aligned to the level's grid, the tile's size, whole) is
    /// that tile's JPEG, sent as stored: decoded, it is pixel for pixel what the read decodes. Any other read (an
    /// edge tile cut short, a shifted or scaled region, a JPEG 2000's) has none.
    @Test(arguments: ["pages", "subIFDs", "bigTIFF", "slide", "leica"])
    func alignedReadsAreTheStoredTilesJPEGs(_ name: String) throws {
        let files = try Self.made.get()
        let file = [("pages", files.pages), ("subIFDs", files.subIFDs), ("bigTIFF", files.bigTIFF),
                    ("slide", files.slide), ("leica", files.leica)].first { $0.0 == name }!.1
        let source = try #require(try PyramidalSource.probe(path: file))
        let tile = PixelSize(width: 256, height: 256)
        var sent = 0
        for (index, level) in source.levels.enumerated() {
            let scale = 1 << index
            for (column, row) in [(0, 0), (1, 0), (2, 1), (5, 3)] {
                guard (column + 1) * 256 <= level.width, (row + 1) * 256 <= level.height else { continue }
                let region = PixelRect(x: column * 256 * scale, y: row * 256 * scale, width: 256 * scale, height: 256 * scale)
                let stored = try #require(try source.storedJPEG(region, size: tile), "\(name) level \(index) \(column),\(row)")
                let decoded = try VImage.decoding(stored)
                let read = try source.read(region, size: tile)
                #expect(decoded.width == 256 && decoded.height == 256 && decoded.bands == 3)
                #expect(try decoded.pixels() == read.pixels(), "\(name) level \(index) \(column),\(row)")
                sent += 1
            }
        }
        #expect(sent >= 8)
        // The level's last, short column of tiles; a region off the grid by a pixel; a tile at another scale.
        let last = (source.levels[0].width / 256) * 256
        #expect(try source.storedJPEG(PixelRect(x: last, y: 0, width: source.width - last, height: 256),
                                      size: PixelSize(width: source.width - last, height: 256)) == nil)
        #expect(try source.storedJPEG(PixelRect(x: 1, y: 0, width: 256, height: 256), size: tile) == nil)
        #expect(try source.storedJPEG(PixelRect(x: 0, y: 0, width: 384, height: 384), size: tile) == nil)
        let jpeg2000 = try #require(try PyramidalSource.probe(path: files.jpeg2000))
        #expect(try jpeg2000.storedJPEG(PixelRect(x: 0, y: 0, width: 256, height: 256), size: tile) == nil)
    }

    /// At least 38 dB, and better than the same pixels one output pixel out of register either way; the shift
    /// estimated by least squares on the gradient under a fifth of a pixel.
    static func expectInRegister(_ got: [UInt8], _ expected: [UInt8], size: PixelSize, _ label: String) {
        let psnr = TestImages.psnr(got, expected)
        #expect(psnr >= 38, "\(label): \(psnr) dB")
        let (w, h) = (size.width, size.height)
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let inner = (w: w - 1 * abs(dx), h: h - abs(dy))
            let shifted = TestImages.psnr(
                window(got, width: w, x: max(0, dx), y: max(0, dy), inner.w, inner.h),
                window(expected, width: w, x: max(0, -dx), y: max(0, -dy), inner.w, inner.h))
            #expect(psnr > shifted, "\(label): \(psnr) dB, one pixel off by (\(dx), \(dy)) \(shifted) dB")
        }
        let shift = LevelPixels.shift(of: got, against: expected, width: w, height: h, bands: 3)
        #expect(abs(shift.x) < 0.2 && abs(shift.y) < 0.2, "\(label): shifted by \(shift)")
    }

    static func window(_ pixels: [UInt8], width: Int, x: Int, y: Int, _ w: Int, _ h: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(w * h * 3)
        for row in y..<(y + h) {
            let start = (row * width + x) * 3
            out += pixels[start..<(start + w * 3)]
        }
        return out
    }

    /// Why enlargements are checked against `affine`: `resize` by 2 samples output pixel x at source position
    /// x / 2 - 0.5 (its pixel centres at x / 2 - 0.25 would be right), so [0, 100] becomes [0, 0, 50, 100].
    @Test func libvipsResizeEnlargesOffCentre() throws {
        let folder = try TestScratch.folder("resize")
        let pair = try VImage.fromPixels([0, 100], width: 2, height: 1, bands: 1)
        try Data(pair.pngData()).write(to: URL(fileURLWithPath: folder + "/pair.png"))
        try Self.vips("resize", folder + "/pair.png", folder + "/enlarged.png", "2", "--vscale", "1", "--kernel", "linear")
        #expect(try VImage.open(folder + "/enlarged.png").pixels() == [0, 0, 50, 100])
    }

    @Test func regionsOutsideTheImageAreRefused() throws {
        let source = try #require(try PyramidalSource.probe(path: try Self.made.get().pages))
        #expect(throws: VipsError.self) {
            try source.read(PixelRect(x: 2900, y: 0, width: 200, height: 100), size: PixelSize(width: 100, height: 50))
        }
    }

    // MARK: Threads and open levels

    /// Pixels of reads made on many threads at once from a source whose levels are not open yet (so that the
    /// threads also race to open them) are those of the same reads made one after another.
    @Test(arguments: ["pages", "slide", "jpeg2000"])
    func readsFromManyThreadsGiveTheSamePixels(_ name: String) throws {
        let files = try Self.made.get()
        let file = [("pages", files.pages), ("slide", files.slide), ("jpeg2000", files.jpeg2000)].first { $0.0 == name }!.1
        let serial = try #require(try PyramidalSource.probe(path: file))
        let expected = try Self.cases.map { try serial.read($0.region, size: $0.size).pixels() }
        let shared = try #require(try PyramidalSource.probe(path: file))
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: 4 * Self.cases.count) { iteration in
            let (region, size, _) = Self.cases[iteration % Self.cases.count]
            results.store(iteration, Result { try shared.read(region, size: size).pixels() })
        }
        for iteration in 0..<(4 * Self.cases.count) {
            let got = try #require(try results.value(iteration)?.get())
            #expect(got == expected[iteration % Self.cases.count], "\(name) read \(iteration)")
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int: Result<[UInt8], any Error>] = [:]
        func store(_ index: Int, _ value: Result<[UInt8], any Error>) { lock.withLock { values[index] = value } }
        func value(_ index: Int) -> Result<[UInt8], any Error>? { lock.withLock { values[index] } }
    }

    /// Through libvips (a JPEG TIFF's reads come from its stored tiles and open no level: `StoredTileRegionTests`;
    /// other sources, JPEG 2000, deflate, ICC-tagged, take this path).
    @Test func atMostTheAllowedLevelsStayOpen() throws {
        let source = try #require(try PyramidalSource.probe(path: try Self.made.get().pages, openLevels: 2))
        for (region, size, _) in Self.cases { _ = try source.readThroughLibvips(region, size: size).pixels() }
        #expect(source.openLevelIndexes == [1, 0])  // the last two cases' levels, least recent first
        let costly = try #require(try PyramidalSource.probe(path: try Self.made.get().pages, openBytes: 0))
        for (region, size, _) in Self.cases { _ = try costly.readThroughLibvips(region, size: size).pixels() }
        #expect(costly.openLevelIndexes == [0])  // the level in use stays open, whatever it costs
    }
}
