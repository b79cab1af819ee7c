import Dispatch
import Foundation
import ScrollGeometry
import Testing
import TestSupport
@testable import Imaging

/// A direct source's regions read from its stored JPEG tiles in plain memory (`storedTilePixels`) against the
/// same reads through libvips (`readThroughLibvips`: tiffload, shrink, bilinear affine) and against libvips's
/// own reading of the full resolution (`PyramidalSourceTests.reference`): the same pixels to within rounding, in
/// register, on the pyramids `PyramidalSourceTests` makes, on a TIFF of RGB (not YCbCr) JPEG tiles, and with
/// every whole shrink from 1 to 8; a source whose tiles libjpeg would not decode as libvips reads them (an ICC
/// profile) is left to libvips.
@Suite struct StoredTileRegionTests {
    typealias Sources = PyramidalSourceTests
    static let width = Sources.width, height = Sources.height

    /// A TIFF of RGB JPEG tiles (photometric 2, each tile given an Adobe marker when decoded) and one of YCbCr
    /// tiles with an ICC profile, made from the same picture.
    static let extra: Result<(rgb: String, profiled: String), TestFailure> = {
        do {
            let folder = try TestScratch.folder("stored-tile-regions")
            let raw = folder + "/smooth.raw", source = folder + "/smooth.v"
            try Data(Sources.Files.smooth(width: width, height: height)).write(to: URL(fileURLWithPath: raw))
            try Sources.vips("rawload", raw, folder + "/multiband.v", "\(width)", "\(height)", "3")
            try Sources.vips("copy", folder + "/multiband.v", source, "--interpretation", "srgb")
            let plain = folder + "/plain.tif", rgb = folder + "/rgb.tif", profiled = folder + "/profiled.tif"
            try Sources.vips("tiffsave", source, plain, "--tile", "--pyramid", "--tile-width", "256", "--tile-height", "256")
            // libtiff's own copy, JPEG tiles of RGB samples (`:r`) at quality 90, every page kept.
            try AperioSlide.run("/usr/bin/tiffcp", ["-c", "jpeg:r:90", "-t", "-w", "256", "-l", "256", plain, rgb])
            try Sources.vips("tiffsave", source, profiled, "--tile", "--pyramid", "--compression", "jpeg", "--Q", "90",
                             "--tile-width", "256", "--tile-height", "256",
                             "--profile", "/usr/share/color/icc/colord/AdobeRGB1998.icc")
            return .success((rgb, profiled))
        } catch {
            return .failure(TestFailure("making the sources: \(error)"))
        }
    }()

    static func file(_ name: String) throws -> String {
        let files = try Sources.made.get()
        switch name {
        case "pages": return files.pages
        case "subIFDs": return files.subIFDs
        case "bigTIFF": return files.bigTIFF
        case "slide": return files.slide
        case "rgb": return try extra.get().rgb
        default: return try extra.get().profiled
        }
    }

    /// Regions that straddle tile edges, reach the image's right and bottom ends, start off the level's pixel
    /// grid, at odd sizes, shrunk by 1 to 8 and enlarged.
    static let cases: [(region: PixelRect, size: PixelSize)] = [
        (PixelRect(x: 200, y: 190, width: 120, height: 140), PixelSize(width: 120, height: 140)),  // a crop over 4 tiles
        (PixelRect(x: 0, y: 0, width: 256, height: 256), PixelSize(width: 256, height: 256)),  // one whole tile
        (PixelRect(x: 2741, y: 1733, width: 259, height: 267), PixelSize(width: 259, height: 267)),  // the corner tiles
        (PixelRect(x: 333, y: 217, width: 901, height: 655), PixelSize(width: 300, height: 218)),
        (PixelRect(x: 1, y: 3, width: 2999, height: 1997), PixelSize(width: 377, height: 251)),
        (PixelRect(x: 0, y: 0, width: width, height: height), PixelSize(width: 187, height: 125)),
        (PixelRect(x: 1791, y: 1023, width: 1209, height: 977), PixelSize(width: 403, height: 326)),  // to the ends
        (PixelRect(x: 250, y: 250, width: 13, height: 9), PixelSize(width: 39, height: 27)),  // enlarged, over a corner
        (PixelRect(x: 507, y: 493, width: 515, height: 519), PixelSize(width: 509, height: 517)),  // barely shrunk
        (PixelRect(x: 1000, y: 600, width: 777, height: 555), PixelSize(width: 500, height: 301)),  // unequal scales
    ]

    @Test(arguments: ["pages", "subIFDs", "bigTIFF", "slide", "rgb"])
    func storedTileReadsAreLibvipsReads(_ name: String) throws {
        let file = try Self.file(name)
        let source = try #require(try PyramidalSource.probe(path: file))
        let cache = DecodedSourceTiles(limit: 64 << 20)
        for (region, size) in Self.cases {
            let label = "\(name) \(region) -> \(size.width)x\(size.height)"
            let pixels = try #require(try source.storedTilePixels(region, size: size, cache: cache), "\(label)")
            #expect(pixels.width == size.width && pixels.height == size.height && pixels.bands == 3)
            let got = pixels.bytes
            Self.expectSame(got, try source.readThroughLibvips(region, size: size).pixels(), label)
            Sources.expectInRegister(got, try Sources.reference(file, region, size), size: size, label)
        }
    }

    /// Every whole shrink from 1 to 8, each also with a fraction left to interpolate: a source of its full
    /// level alone (as a slide whose levels are 4 times apart leaves up to 3 to shrink, and the first level of
    /// any pyramid up to 1.99), the regions odd-sized and straddling tiles.
    @Test(arguments: ["pages", "rgb"])
    func everyWholeShrinkIsLibvipssShrink(_ name: String) throws {
        let file = try Self.file(name)
        let probed = try #require(try PyramidalSource.probe(path: file))
        let source = try Self.onlyLevels([0, 2], of: probed)
        let full = try Self.onlyLevels([0], of: probed)
        for shrink in 1...8 {
            for extra in [0, 5] {
                let region = PixelRect(x: 97 * shrink, y: 61 * shrink + 3, width: 133 * shrink + extra, height: 91 * shrink + extra)
                let size = PixelSize(width: 133, height: 91)
                for (levels, reader) in [("level 0", full), ("levels 0 and 2", source)] {
                    let label = "\(name) \(levels) shrunk \(shrink) + \(extra): \(region)"
                    let pixels = try #require(try reader.storedTilePixels(region, size: size, cache: DecodedSourceTiles(limit: 0)))
                    Self.expectSame(pixels.bytes, try reader.readThroughLibvips(region, size: size).pixels(), label)
                    Sources.expectInRegister(pixels.bytes, try Self.reference(file, region, size), size: size, label)
                }
            }
        }
        // At the image's end, where the last block is partial (libvips repeats the level's last pixel into it).
        let region = PixelRect(x: Self.width - 701, y: Self.height - 503, width: 701, height: 503)
        let size = PixelSize(width: 701 / 7, height: 503 / 7)
        let pixels = try #require(try full.storedTilePixels(region, size: size))
        Self.expectSame(pixels.bytes, try full.readThroughLibvips(region, size: size).pixels(), "\(name) at the end")
    }

    /// A source whose tiles carry an ICC profile is converted to sRGB through libvips: no stored-tile read, and
    /// `read` still gives libvips's reading.
    @Test func aProfiledSourceIsLeftToLibvips() throws {
        let source = try #require(try PyramidalSource.probe(path: try Self.file("profiled")))
        let (region, size) = Self.cases[3]
        #expect(try source.storedTilePixels(region, size: size) == nil)
        let jpeg2000 = try #require(try PyramidalSource.probe(path: try Sources.made.get().jpeg2000))
        #expect(try jpeg2000.storedTilePixels(region, size: size) == nil)
        #expect(try source.read(region, size: size).pixels() == source.readThroughLibvips(region, size: size).pixels())
    }

    /// The decoded tiles are kept within the bound, in bytes, and reads through a small cache, a large one and
    /// none give the same pixels; a second read of a region decodes nothing new.
    @Test func decodedTilesStayWithinTheirBound() throws {
        let source = try #require(try PyramidalSource.probe(path: try Self.file("pages")))
        let tileBytes = 256 * 256 * 3
        let small = DecodedSourceTiles(limit: 3 * tileBytes), large = DecodedSourceTiles(limit: 64 << 20)
        for (region, size) in Self.cases {
            let none = try #require(try source.storedTilePixels(region, size: size, cache: DecodedSourceTiles(limit: 0))).bytes
            #expect(try source.storedTilePixels(region, size: size, cache: small)?.bytes == none)
            #expect(try source.storedTilePixels(region, size: size, cache: large)?.bytes == none)
            #expect(small.bytes <= 3 * tileBytes)
        }
        #expect(small.count > 0 && large.count > small.count)
        let held = large.count
        _ = try source.storedTilePixels(Self.cases[3].region, size: Self.cases[3].size, cache: large)
        #expect(large.count == held)
        large.limit = tileBytes
        #expect(large.bytes <= tileBytes)
        // Another opening of the same file never meets these tiles.
        let reopened = try #require(try PyramidalSource.probe(path: try Self.file("pages")))
        #expect(reopened.identity != source.identity)
    }

    /// Reads on many threads through one cache give the pixels of the same reads one after another.
    @Test func readsFromManyThreadsShareTheCache() throws {
        let source = try #require(try PyramidalSource.probe(path: try Self.file("pages")))
        let expected = try Self.cases.map { try #require(try source.storedTilePixels($0.region, size: $0.size, cache: DecodedSourceTiles(limit: 0))).bytes }
        let cache = DecodedSourceTiles(limit: 8 * 256 * 256 * 3)
        let results = PyramidalSourceTests.Results()
        DispatchQueue.concurrentPerform(iterations: 4 * Self.cases.count) { iteration in
            let (region, size) = Self.cases[iteration % Self.cases.count]
            results.store(iteration, Result { try source.storedTilePixels(region, size: size, cache: cache)?.bytes ?? [] })
        }
        for iteration in 0..<(4 * Self.cases.count) {
            #expect(try results.value(iteration)?.get() == expected[iteration % Self.cases.count], "read \(iteration)")
        }
        #expect(cache.bytes <= 8 * 256 * 256 * 3)
    }

    /// The same resampling as libvips's: within a level of rounding nearly everywhere (libvips places its
    /// bilinear samples to 1/64 of a pixel and rounds its box means and each pass apart).
    static func expectSame(_ got: [UInt8], _ libvips: [UInt8], _ label: String) {
        #expect(got.count == libvips.count, "\(label)")
        guard got.count == libvips.count else { return }
        let psnr = TestImages.psnr(got, libvips)
        #expect(psnr >= 45, "\(label): \(psnr) dB against libvips's resampling")
        let worst = zip(got, libvips).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(worst <= 3, "\(label): a sample \(worst) levels from libvips's")
    }

    /// libvips's own reading: an exact whole shrink is libvips's box `shrink` of the full resolution (its
    /// `resize` by exactly 1/2 lands a quarter of a pixel off: the shift estimate, on both this reading and
    /// libvips's affine one, is 0.28 pixel), any other as `PyramidalSourceTests.reference`.
    static func reference(_ file: String, _ region: PixelRect, _ size: PixelSize) throws -> [UInt8] {
        guard region.width % size.width == 0, region.height % size.height == 0, region.width > size.width else {
            return try Sources.reference(file, region, size)
        }
        return try VImage.open(file).crop(x: region.x, y: region.y, width: region.width, height: region.height)
            .shrink(horizontal: region.width / size.width, vertical: region.height / size.height).pixels()
    }

    /// `source` with only the levels at `indexes`, as a file holding only those would be.
    static func onlyLevels(_ indexes: [Int], of source: PyramidalSource) throws -> PyramidalSource {
        PyramidalSource(path: source.path, format: source.format, levels: indexes.map { source.levels[$0] },
                        openCosts: indexes.map { source.openCosts[$0] }, micronsPerPixel: nil, associatedImages: [],
                        file: try SourceFile(path: source.path), openLevels: 4, openBytes: 256 << 20)
    }
}
