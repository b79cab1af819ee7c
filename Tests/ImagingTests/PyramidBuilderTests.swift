import Foundation
import TestSupport
import ScrollGeometry
import Testing
@testable import Imaging

@Suite struct PyramidBuilderTests {
    @Test func buildsEveryLevelWithDeepZoomSizes() throws {
        let folder = try TestImages.folder()
        let source = folder + "/source.png"
        try TestImages.pattern(width: 1500, height: 700, at: source)
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let percents = Percents()
        let pyramid = try PyramidBuilder().build(source: source, into: out) { percents.add($0.percent) }

        #expect(pyramid == Pyramid(width: 1500, height: 700, tileSize: 254, overlap: 1))
        #expect(percents.values.last == 100)
        for level in pyramid.levels {
            let grid = pyramid.tileGrid(ofLevel: level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let tile = try VImage.open("\(out)/image_files/\(level)/\(column)_\(row).jpeg")
                    let rect = pyramid.tileRect(level: level, column: column, row: row)
                    #expect(tile.width == rect.width && tile.height == rect.height, "tile \(level)/\(column)_\(row)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: "\(out)/image_files/\(level)/\(grid.columns)_0.jpeg"))
        }
        #expect(!FileManager.default.fileExists(atPath: "\(out)/image_files/\(pyramid.maxLevel + 1)"))
    }

    /// Found by schemathesis (uploads, deletions and re-uploads while builds ran): the server crashed
    /// calling a freed ProgressRelay from libvips's "eval" signal. The handler stayed connected after
    /// the computation it observed, so evaluating the same image again (an image the operation cache
    /// hands out twice is one way) called into a relay that no longer existed.
    @Test func progressHandlersEndWithTheirComputation() throws {
        try Vips.start()
        let folder = try TestImages.folder()
        // A size no other test uses, so no cached operation of another test hands this image out
        // computed; large enough that libvips (which paces its eval signals) signals progress.
        let image = try VImage.zonePlate(width: 2017, height: 1511).linear(127, 128).castToUChar()
        let percents = Percents()
        try image.saveJPEG(to: folder + "/first.jpeg") { percents.add($0.percent) }
        let seen = percents.values.count
        // Evaluating the same image again must reach no handler of the first save.
        for index in 0..<5 {
            _ = [Int](repeating: index, count: 4096)  // churn the heap where the relay was
            try image.saveJPEG(to: folder + "/again\(index).jpeg")
        }
        #expect(percents.values.count == seen)
    }

    @Test func previewIsThePreviewLevelWhole() throws {
        let (pyramid, _, out) = try TestImages.builtPyramid(width: 3000, height: 1000)

        let level = pyramid.previewLevel()
        let size = pyramid.size(ofLevel: level)
        #expect(size == PixelSize(width: 750, height: 250))
        let preview = try VImage.open(out + "/preview.jpeg")
        #expect(preview.width == size.width && preview.height == size.height)
        // The tile at (1, 0) of that level, overlap cut away, must match the same area of the preview, and
        // better than the areas one pixel beside it: a shift would show. The preview is encoded like the
        // tiles (Q85, 4:2:0) from the tiles' pixels here (a PNG source), so the match is a JPEG
        // generation's (about 31 dB on this sharp-edged pattern), not exact.
        let tile = try VImage.open("\(out)/image_files/\(level)/1_0.jpeg").crop(x: 1, y: 1, width: 254, height: 248)
        let psnr = TestImages.psnr(try tile.pixels(), try preview.crop(x: 254, y: 1, width: 254, height: 248).pixels())
        #expect(psnr > 28, "PSNR \(psnr)")
        for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
            let beside = try preview.crop(x: 254 + dx, y: 1 + dy, width: 254, height: 248).pixels()
            let shifted = TestImages.psnr(try tile.pixels(), beside)
            #expect(psnr > shifted + 3, "aligned \(psnr) dB, shifted by (\(dx), \(dy)) \(shifted) dB")
        }
    }

    /// The preview stitched by libjpeg-turbo straight into one buffer (`stitchedLevel`) is what libvips makes of
    /// the same tiles (each loaded, cropped to its own part, joined, saved at the tiles' quality): the same
    /// pixels, colour and grey. The test fails if a piece lands a pixel off, a tile is decoded otherwise than
    /// libvips's jpegload does, or the encoder's settings differ from jpegsave's.
    @Test(arguments: [1, 3]) func stitchedPreviewIsLibvipsOwnStitching(bands: Int) throws {
        try Vips.start()
        let folder = try TestImages.folder("stitchedPreview\(bands)")
        let (width, height) = (2900, 1300)  // short last column and row at the preview level (725 x 325)
        let colour = TestImages.pixels(width: width, height: height)
        let pixels = bands == 3 ? colour : stride(from: 0, to: colour.count, by: 3).map { colour[$0 + 2] }
        let source = folder + "/source.png"
        try Data(try VImage.fromPixels(pixels, width: width, height: height, bands: bands).pngData())
            .write(to: URL(fileURLWithPath: source))
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let pyramid = try PyramidBuilder().build(source: source, into: out)

        let level = pyramid.previewLevel()
        let grid = pyramid.tileGrid(ofLevel: level)
        let size = pyramid.size(ofLevel: level)
        var pieces: [VImage] = []
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let rect = pyramid.tileRect(level: level, column: column, row: row)
                pieces.append(try VImage.open("\(out)/image_files/\(level)/\(column)_\(row).jpeg").crop(
                    x: column * 254 - rect.x, y: row * 254 - rect.y, width: min(254, size.width - column * 254),
                    height: min(254, size.height - row * 254)))
            }
        }
        let expected = folder + "/expected.jpeg"
        try VImage.join(pieces, across: grid.columns).crop(x: 0, y: 0, width: size.width, height: size.height)
            .saveJPEG(to: expected, quality: 85)
        let preview = try VImage.open(out + "/preview.jpeg")
        #expect(preview.bands == bands)
        #expect(try preview.pixels() == (try VImage.open(expected).pixels()))
    }

    /// A JPEG's base comes before the full pass only where a 1/8-scale decode reaches its preview level: over
    /// 4096 px with the 1024 preview. A phone's 4032x3024 photo takes its base from the full pass, and the
    /// reduced decode refuses it however it is called.
    @Test func onlyASourceOverEightTimesThePreviewDecodesItsPreviewFirst() throws {
        try Vips.start()
        for (width, height, first) in [(4096, 3072, false), (4032, 3024, false), (1500, 1100, false), (300, 200, false),
                                       (4097, 100, true), (100, 4097, true), (8064, 6048, true), (16384, 16384, true)] {
            let pyramid = Pyramid(width: width, height: height)
            #expect(PyramidBuilder.previewComesFirst(pyramid, previewLevel: pyramid.previewLevel()) == first, "\(width)x\(height)")
        }
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try NoiseJPEG.source(width: 4032, height: 3024, bands: 3, quality: 85, in: folder)
        let pyramid = Pyramid(width: 4032, height: 3024)
        let stored = try VImage.open(source, sequential: true)
        #expect(try PyramidBuilder().reducedPreview(of: source, stored: stored, pyramid: pyramid, level: pyramid.previewLevel()) == nil)
    }

    /// A JPEG's preview level is libjpeg's reduced decode (its partial last blocks kept) halved level by
    /// level as dzsave halves, whether the sides divide or not.
    @Test(arguments: [(4096, 512), (4000, 500), (4001, 503)])
    func aJPEGsPreviewIsItsReducedDecodeHalved(width: Int, height: Int) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try NoiseJPEG.source(width: width, height: height, bands: 3, quality: 85, in: folder)
        let pyramid = Pyramid(width: width, height: height)
        let level = pyramid.previewLevel(maxSide: 256)
        let stored = try VImage.open(source, sequential: true)
        let preview = try #require(try PyramidBuilder(previewMaxSide: 256).reducedPreview(
            of: source, stored: stored, pyramid: pyramid, level: level))
        #expect(preview.width == pyramid.size(ofLevel: level).width && preview.height == pyramid.size(ofLevel: level).height)
        let eighth = try #require(try PyramidBuilder.decodeJPEG(source, scale: 8))
        #expect(eighth.width == (width + 7) / 8 && eighth.height == (height + 7) / 8)
        #expect(try preview.pixels() == eighth.halved().pixels(), "\(width)x\(height)")
    }

    /// Every coarse level is the source shrunk by dzsave's rule (pixel i covers source pixels
    /// [i * 2^k, (i + 1) * 2^k); each level the 2 x 2 mean of the one below, an odd edge repeated) with no
    /// sub-pixel shift, whichever path made it: the
    /// reduced decode of a JPEG at 1/8 (over 4096 px), the full pass of a JPEG (up to 4096 px: odd and even
    /// sizes) and of a PNG. Checked against
    /// the box average of libvips's own full decode of the source, by a least-squares fit of the gradient.
    @Test(arguments: [(7001, 3003, "jpg"), (900, 4001, "jpg"), (3001, 2001, "jpg"), (2048, 1536, "jpg"), (1801, 1203, "png")])
    func everyLevelIsTheSourceBoxShrunkWithoutShift(width: Int, height: Int, format: String) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/source.\(format)"
        let picture = try VImage.fromPixels(LevelPixels.smooth(width: width, height: height), width: width, height: height, bands: 3)
        if format == "jpg" {
            try picture.saveJPEG(to: source, quality: 92)
        } else {
            try Data(picture.pngData()).write(to: URL(fileURLWithPath: source))
        }
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let pyramid = try PyramidBuilder().build(source: source, into: out)
        let full = try VImage.open(source).pixels()
        let previewLevel = pyramid.previewLevel(maxSide: 1024)
        for level in max(0, previewLevel - 2)...min(pyramid.maxLevel - 1, previewLevel + 1) {
            let size = pyramid.size(ofLevel: level)
            let made = try LevelPixels.stitch(pyramid, level: level, tiles: out + "/image_files")
            let box = LevelPixels.boxShrunk(full, width: width, height: height, bands: 3, factor: 1 << (pyramid.maxLevel - level))
            let shift = LevelPixels.shift(of: made, against: box, width: size.width, height: size.height, bands: 3)
            #expect(abs(shift.x) < 0.1 && abs(shift.y) < 0.1, "\(width)x\(height) level \(level): shifted by \(shift)")
            // JPEG tiles at Q85 (4:2:0) of waves six pixels long at the coarsest levels checked: a gross error
            // (a wrong band, a swapped side), not fidelity; the shift above is the fine check.
            let psnr = TestImages.psnr(made, box)
            #expect(psnr > 25, "\(width)x\(height) level \(level): \(psnr) dB")
        }
    }

    @Test func unreadableSourceFailsWithLibvipsMessage() throws {
        let folder = try TestImages.folder()
        let source = folder + "/not-an-image.jpg"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: source))
        #expect(throws: VipsError.self) {
            try PyramidBuilder().build(source: source, into: folder)
        }
    }

    /// No tile carries the source's profile, EXIF or orientation: an orientation in a tile would have browsers turn
    /// it, a profile would be a second conversion. (SourceImage takes them off the pixels, and libvips 8.14's dzsave
    /// writes none into its tiles anyway: either alone passes this.)
    @Test(arguments: ["p3", "srgb", "exif"])
    func noTileCarriesTheSourcesMetadata(tag: String) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = folder + "/plain.jpg", source = folder + "/\(tag).jpg"
        try TestImages.writeJPEG(width: 700, height: 500, to: plain)
        if tag == "exif" {
            try Data(SourceImageTests.withOrientation([UInt8](Data(contentsOf: URL(fileURLWithPath: plain))), 1))
                .write(to: URL(fileURLWithPath: source))
        } else {
            try SourceImageTests.vips(["icc_transform", plain, source + "[Q=95]", tag, "--input-profile", "srgb"])
        }
        let stored = try VImage.open(source)
        #expect(stored.stringField(tag == "exif" ? "exif-data" : "icc-profile-data") != nil, "the source is tagged")
        let out = folder + "/pyramid"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let pyramid = try PyramidBuilder().build(source: source, into: out)
        // The preview is saved by libvips's jpegsave, which writes an EXIF block of its own (orientation 1): only
        // a profile would change what it shows.
        #expect(try VImage.open("\(out)/\(PyramidBuilder.previewName)").stringField("icc-profile-data") == nil, "\(tag): preview")
        for level in pyramid.levels {
            let grid = pyramid.tileGrid(ofLevel: level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let file = "\(out)/\(PyramidBuilder.tilesFolderName)/\(level)/\(column)_\(row).jpeg"
                    let image = try VImage.open(file)
                    for field in ["icc-profile-data", "exif-data", "orientation"] {
                        #expect(image.stringField(field) == nil, "\(tag): \(file) carries \(field)")
                    }
                }
            }
        }
    }

    @Test func bracketsInFileNamesAreNotLoaderOptions() throws {
        let folder = try TestImages.folder()
        let source = folder + "/odd[page=3].png"
        try TestImages.pattern(width: 40, height: 30, at: source)
        let header = try ImageHeader.read(source)
        #expect(header == ImageHeader(width: 40, height: 30, bands: 3))
    }
}

/// Collects progress reports from libvips's computing thread.
final class Percents: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [Int] = []
    func add(_ value: Int) { lock.withLock { stored.append(value) } }
    var values: [Int] { lock.withLock { stored } }
}
