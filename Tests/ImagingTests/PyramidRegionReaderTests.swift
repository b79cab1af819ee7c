import Foundation
import TestSupport
import ScrollGeometry
import Testing
@testable import Imaging

/// Level choice arithmetic, and regions read from a real pyramid against libvips on the source.
@Suite struct PyramidRegionReaderTests {
    let pyramid = Pyramid(width: 1500, height: 700)  // maxLevel 11

    @Test func fullResolutionRequestsUseTheTopLevel() {
        let plan = pyramid.levelRegion(for: PixelRect(x: 10, y: 20, width: 300, height: 200),
                                       output: PixelSize(width: 300, height: 200))
        #expect(plan == LevelRegion(level: 11, shift: 0, rect: PixelRect(x: 10, y: 20, width: 300, height: 200)))
    }

    @Test func smallerOutputsUseTheSmallestLevelWithEnoughPixels() {
        let region = PixelRect(x: 0, y: 0, width: 1500, height: 700)
        #expect(pyramid.levelRegion(for: region, output: PixelSize(width: 750, height: 350)).level == 10)
        #expect(pyramid.levelRegion(for: region, output: PixelSize(width: 751, height: 350)).level == 11)
        #expect(pyramid.levelRegion(for: region, output: PixelSize(width: 100, height: 47)).level == 8)  // 188 x 88; level 7 is 94 x 44
        #expect(pyramid.levelRegion(for: region, output: PixelSize(width: 3000, height: 1400)).level == 11)
    }

    @Test func aShortLastTileComesFromItsOwnLevel() {
        // Level 10 is 750 wide: its last column (508..<750) is 242 px; in source pixels
        // 1016..<1500 (484 px), which at scale factor 2 asks for ceil(484 / 2) = 242 px.
        let plan = pyramid.levelRegion(for: PixelRect(x: 1016, y: 508, width: 484, height: 192),
                                       output: PixelSize(width: 242, height: 96))
        #expect(plan == LevelRegion(level: 10, shift: 1, rect: PixelRect(x: 508, y: 254, width: 242, height: 96)))
    }

    @Test func unalignedRegionsRoundOutward() {
        let plan = pyramid.levelRegion(for: PixelRect(x: 5, y: 3, width: 10, height: 10), output: PixelSize(width: 2, height: 2))
        #expect(plan.shift == 2)
        #expect(plan.rect == PixelRect(x: 1, y: 0, width: 3, height: 4))  // 5/4 ..< ceil(15/4), 3/4 ..< ceil(13/4)
    }

    @Test func readsMatchLibvipsOnTheSource() throws {
        let (built, source, out) = try TestImages.builtPyramid(width: 1500, height: 700)
        let reader = PyramidRegionReader(pyramid: built) { "\(out)/image_files/\($0)/\($1)_\($2).jpeg" }
        let cases: [(PixelRect, PixelSize)] = [
            (PixelRect(x: 0, y: 0, width: 1500, height: 700), PixelSize(width: 1500, height: 700)),
            (PixelRect(x: 200, y: 100, width: 700, height: 500), PixelSize(width: 350, height: 250)),  // 4 tiles of level 10
            (PixelRect(x: 251, y: 251, width: 10, height: 10), PixelSize(width: 10, height: 10)),  // across a tile corner
            (PixelRect(x: 0, y: 0, width: 1500, height: 700), PixelSize(width: 97, height: 45)),
            (PixelRect(x: 1400, y: 600, width: 100, height: 100), PixelSize(width: 400, height: 400)),
        ]
        for (rect, size) in cases {
            let got = try reader.read(rect, size: size)
            #expect(got.width == size.width && got.height == size.height)
            var expected = try VImage.open(source).crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
            if size.width != rect.width {
                expected = try expected.resize(horizontal: Double(size.width) / Double(rect.width),
                                               vertical: Double(size.height) / Double(rect.height))
            }
            let psnr = TestImages.psnr(try got.pixels(), try expected.pixels())
            // The tiles are JPEG Q85 of a sharp-edged pattern (about 28 dB at full resolution),
            // and smaller levels were averaged 2x2 by dzsave: close, not equal. A wrong level,
            // offset or scale shows as no better than the same images one pixel out of register.
            let offByOne = TestImages.psnr(
                try got.crop(x: 0, y: 0, width: size.width - 1, height: size.height).pixels(),
                try expected.crop(x: 1, y: 0, width: size.width - 1, height: size.height).pixels())
            #expect(psnr > 22, "\(rect) -> \(size): PSNR \(psnr) dB")
            if size.width <= rect.width {  // enlarged, one output pixel is less than a source pixel
                #expect(psnr > offByOne + 1, "\(rect) -> \(size): PSNR \(psnr) dB, one pixel off \(offByOne) dB")
            }
        }
    }

    /// A whole level made from the finer one (the preview's AVIF is encoded from it) holds, in every tile's
    /// place, exactly the pixels `tileFromFinerLevel` makes for that tile (which the AVIF tiles are made of):
    /// the 2 x 2 blocks fall on the same pixels, odd edges included (1101 x 601 leaves odd levels).
    @Test func aLevelFromTheFinerLevelIsItsTilesFromTheFinerLevel() throws {
        let (built, _, out) = try TestImages.builtPyramid(width: 1101, height: 601)
        let reader = PyramidRegionReader(pyramid: built) { "\(out)/image_files/\($0)/\($1)_\($2).jpeg" }
        for level in [built.maxLevel - 1, built.maxLevel - 2] {
            let whole = try reader.levelFromFinerLevel(level)
            let size = built.size(ofLevel: level)
            #expect(whole.width == size.width && whole.height == size.height)
            let pixels = whole.bytes, bands = whole.bands
            let (columns, rows) = built.tileGrid(ofLevel: level)
            for row in 0..<rows {
                for column in 0..<columns {
                    let tile = try reader.tileFromFinerLevel(level: level, column: column, row: row)
                    let rect = built.tileRect(level: level, column: column, row: row)
                    #expect(tile.width == rect.width && tile.height == rect.height && tile.bands == bands)
                    let tilePixels = tile.bytes
                    var same = true
                    for y in 0..<rect.height where same {
                        let start = ((rect.y + y) * size.width + rect.x) * bands
                        same = pixels[start..<(start + rect.width * bands)]
                            .elementsEqual(tilePixels[(y * rect.width * bands)..<((y + 1) * rect.width * bands)])
                    }
                    #expect(same, "level \(level) tile \(column)_\(row)")
                }
            }
        }
    }

    /// At a level's own resolution a read is the stored tiles' pixels without their overlap: exactly
    /// what libvips gives by decoding every covering tile, cutting its core and joining the cores.
    @Test func levelPixelsAreTheStoredTilesCores() throws {
        let (built, _, out) = try TestImages.builtPyramid(width: 1100, height: 600)
        let path: @Sendable (Int, Int, Int) -> String = { level, column, row in "\(out)/image_files/\(level)/\(column)_\(row).jpeg" }
        let reader = PyramidRegionReader(pyramid: built, tilePath: path)
        let level = built.maxLevel, t = built.tileSize
        let size = built.size(ofLevel: level)
        let (columns, rows) = built.tileGrid(ofLevel: level)
        var cores: [VImage] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let stored = built.tileRect(level: level, column: column, row: row)
                cores.append(try VImage.open(path(level, column, row)).crop(
                    x: column * t - stored.x, y: row * t - stored.y,
                    width: min(t, size.width - column * t), height: min(t, size.height - row * t)))
            }
        }
        let expected = try VImage.join(cores, across: columns)
        var rng = SystemRandomNumberGenerator()
        var rects = [PixelRect(x: 0, y: 0, width: size.width, height: size.height),
                     PixelRect(x: t - 1, y: t - 1, width: 2, height: 2), PixelRect(x: t, y: 0, width: t, height: t)]
        for _ in 0..<12 {
            let x = Int.random(in: 0..<size.width, using: &rng), y = Int.random(in: 0..<size.height, using: &rng)
            rects.append(PixelRect(x: x, y: y, width: Int.random(in: 1...(size.width - x), using: &rng),
                                   height: Int.random(in: 1...(size.height - y), using: &rng)))
        }
        for rect in rects {
            let got = try reader.read(rect, size: PixelSize(width: rect.width, height: rect.height))
            #expect(got.bands == 3)
            #expect(try got.pixels() == expected.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels(),
                    "\(rect)")
        }
    }

    @Test func greyPyramidsGiveGreyRegions() throws {
        let folder = try TestImages.folder()
        let source = folder + "/grey.png"
        let grey = try VImage.fromPixels(TestImages.pixels(width: 700, height: 300), width: 700, height: 300, bands: 3).grayscale()
        try Data(grey.pngData()).write(to: URL(fileURLWithPath: source))
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let built = try PyramidBuilder().build(source: source, into: out)
        let reader = PyramidRegionReader(pyramid: built) { "\(out)/image_files/\($0)/\($1)_\($2).jpeg" }
        let got = try reader.read(PixelRect(x: 100, y: 50, width: 500, height: 200), size: PixelSize(width: 250, height: 100))
        #expect(got.bands == 1)
        let expected = try VImage.open(source).crop(x: 100, y: 50, width: 500, height: 200).resize(horizontal: 0.5, vertical: 0.5)
        #expect(TestImages.psnr(try got.pixels(), try expected.pixels()) > 25)
    }

    @Test func aMissingTileIsAnErrorNotACrash() throws {
        let reader = PyramidRegionReader(pyramid: pyramid) { "/nonexistent/\($0)/\($1)_\($2).jpeg" }
        #expect(throws: VipsError.self) {
            _ = try reader.read(PixelRect(x: 0, y: 0, width: 100, height: 100), size: PixelSize(width: 100, height: 100)).pixels()
        }
    }
}
