import Foundation
import Imaging
import ScrollGeometry
import TestSupport
import Testing
@testable import TilescopeDemo

@Suite(.serialized) struct DemoGalleryTests {
    /// The quick images are written once per test process and shared: painting them in a
    /// debug build takes seconds.
    static let quickFolder: Result<String, Error> = Result {
        let folder = try DemoFolders.make("quick")
        try DemoGallery.writeQuickImages(into: folder)
        return folder
    }

    @Test func quickImagesHaveThePromisedShapes() throws {
        let folder = try Self.quickFolder.get()
        for image in DemoImage.quick {
            let header = try ImageHeader.read(DemoGallery.path(of: image, in: folder))
            #expect(header.width == image.size.width && header.height == image.size.height, "\(image.fileName)")
            #expect(header.bands == 3, "\(image.fileName)")
        }
        let panorama = try ImageHeader.read(folder + "/panorama.jpg")
        #expect(panorama.width == 3 * panorama.height)
        let tower = try ImageHeader.read(folder + "/tower.jpg")
        #expect(tower.height >= 2 * tower.width)
        let square = try ImageHeader.read(folder + "/mandelbrot.png")
        #expect(square.width == square.height)
        let small = try ImageHeader.read(folder + "/small.jpg")
        #expect(max(small.width, small.height) < 1024)
        #expect(FileManager.default.fileExists(atPath: folder + "/grid.png"))
    }

    @Test func noTemporaryFilesRemain() throws {
        let folder = try Self.quickFolder.get()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(names.sorted() == (DemoImage.quick.map(\.fileName) + [DemoGallery.captionsFileName]).sorted())
    }

    @Test func secondRunRewritesNothing() throws {
        let folder = try Self.quickFolder.get()
        let names = DemoImage.quick.map(\.fileName) + [DemoGallery.captionsFileName]
        let before = try names.map { try DemoFolders.modificationDate(folder + "/" + $0) }
        try DemoGallery.writeQuickImages(into: folder)
        let after = try names.map { try DemoFolders.modificationDate(folder + "/" + $0) }
        #expect(before == after)
    }

    @Test func aMissingImageIsWrittenAgainAlone() throws {
        let folder = try DemoFolders.make("partial")
        let complete = try Self.quickFolder.get()
        for name in try FileManager.default.contentsOfDirectory(atPath: complete) {
            try FileManager.default.copyItem(atPath: complete + "/" + name, toPath: folder + "/" + name)
        }
        let keptDate = try DemoFolders.modificationDate(folder + "/grid.png")
        try FileManager.default.removeItem(atPath: folder + "/small.jpg")
        // A leftover from an interrupted run must not survive or be mistaken for the image.
        let leftover = AtomicFile.temporaryPath(for: folder + "/small.jpg")
        try Data("half".utf8).write(to: URL(fileURLWithPath: leftover))
        try DemoGallery.writeQuickImages(into: folder)
        #expect(try ImageHeader.read(folder + "/small.jpg").width == DemoImage.small.size.width)
        #expect(!FileManager.default.fileExists(atPath: leftover))
        #expect(try DemoFolders.modificationDate(folder + "/grid.png") == keptDate)
    }

    @Test func captionsDescribeEveryImage() throws {
        let folder = try Self.quickFolder.get()
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + DemoGallery.captionsFileName))
        let captions = try JSONDecoder().decode([String: [String: String]].self, from: data)
        #expect(Set(captions.keys) == Set(DemoImage.all.map(\.fileName)))
        for (name, entry) in captions {
            #expect(!(entry["title"] ?? "").isEmpty, "\(name)")
            #expect((entry["caption"] ?? "").count > 40, "\(name)")
        }
    }

    /// Reads the grid back from disk and checks, font pixel by font pixel, that a cell's
    /// label is drawn where the font says: ink dark, gaps light.
    @Test(arguments: [(2, 1), (0, 0), (15, 11)])
    func gridLabelsAreDrawnFromTheFont(column: Int, row: Int) throws {
        let folder = try Self.quickFolder.get()
        let grid = try VImage.open(folder + "/grid.png")
        let text = GridPainter.label(column: column, row: row)
        #expect(text == "\(column * 250),\(row * 250)")
        let origin = GridPainter.labelOrigin(column: column, row: row)
        let pixels = try grid.crop(x: origin.x, y: origin.y, width: origin.width, height: origin.height).pixels()
        let scale = GridPainter.labelScale
        var inkSeen = 0, gapSeen = 0
        for (index, character) in text.enumerated() {
            for fontRow in 0..<BitmapFont.glyphHeight {
                for fontColumn in 0..<BitmapFont.glyphWidth {
                    // The centre of the font pixel's square.
                    let x = (index * BitmapFont.advance + fontColumn) * scale + scale / 2
                    let y = fontRow * scale + scale / 2
                    let red = Int(pixels[(y * origin.width + x) * 3])
                    if BitmapFont.isInk(character, column: fontColumn, row: fontRow) {
                        #expect(red < 60, "\(text) '\(character)' ink at \(fontColumn),\(fontRow)")
                        inkSeen += 1
                    } else {
                        #expect(red > 200, "\(text) '\(character)' gap at \(fontColumn),\(fontRow)")
                        gapSeen += 1
                    }
                }
            }
        }
        #expect(inkSeen > 10 && gapSeen > 10)
    }

    @Test func gridLinesCrossTheImage() throws {
        let folder = try Self.quickFolder.get()
        let grid = try VImage.open(folder + "/grid.png")
        // A major line at x = 1000, in the middle of a cell row, away from labels.
        let line = try grid.crop(x: 999, y: 1130, width: 4, height: 1).pixels()
        #expect(line[0] > 150 && line[3] < 80 && line[6] < 80 && line[9] > 150, "\(line)")
    }

    @Test func fontDrawsTheGlyphsItDescribes() {
        var canvas = PixelCanvas(width: 40, height: 20, color: .white)
        canvas.drawText("7", x: 3, y: 2, scale: 2, color: .black)
        // '7' has a full top bar and its stem ends in column 1 at the bottom.
        for column in 0..<5 { #expect(canvas[3 + column * 2, 2] == .black) }
        #expect(canvas[3 + 1 * 2, 2 + 6 * 2] == .black)
        #expect(canvas[3 + 1 * 2 + 1, 2 + 6 * 2 + 1] == .black)
        #expect(canvas[3 + 2 * 2, 2 + 6 * 2] == .white)
        #expect(canvas[3, 2 + 6 * 2] == .white)
        #expect(BitmapFont.width(of: "12", scale: 3) == 33)
        #expect(!BitmapFont.canDraw("?"))
    }

    /// The gigapixel code path at a small size: same pipeline, same staging, same progress.
    @Test func gigapixelPipelineStreamsToAJPEG() throws {
        let folder = try DemoFolders.make("giga")
        let size = PixelSize(width: 4000, height: 2500)
        let seen = PercentLog()
        try DemoGallery.writeGigapixelImage(into: folder, size: size) { seen.add($0) }
        let header = try ImageHeader.read(folder + "/gigapixel.jpg")
        #expect(header.width == size.width && header.height == size.height && header.bands == 3)
        #expect(seen.values.last == 100)
        #expect(seen.values.count > 2, "progress reported along the way: \(seen.values)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["gigapixel.jpg"])

        // The grid is drawn into the 8x smaller continent map at the ink level: a line
        // 8 px thick along y = 0, and the label "0,0" just below and right of the crossing.
        let image = try VImage.open(folder + "/gigapixel.jpg")
        let factor = GigapixelPipeline.coarseFactor, scale = GigapixelPipeline.labelScale
        let ink = TerrainPalette.ink
        func isInk(_ x: Int, _ y: Int) throws -> Bool {
            let pixel = try image.crop(x: x, y: y, width: 1, height: 1).pixels()
            return abs(Int(pixel[0]) - Int(ink.red)) < 24 && abs(Int(pixel[1]) - Int(ink.green)) < 24
                && abs(Int(pixel[2]) - Int(ink.blue)) < 24
        }
        #expect(try isInk(2000, factor / 2))
        #expect(try !isInk(2000, factor * 3))
        // Font pixel (1, 0) of the first '0' is ink, font pixel (0, 0) is not.
        let glyphTop = (4 * factor) + scale * factor / 2
        #expect(try isInk((4 + 1 * scale) * factor + scale * factor / 2, glyphTop))
        #expect(try !isInk((4 + 0 * scale) * factor + scale * factor / 2, glyphTop))
        let picture = try image.crop(x: 2000, y: 2000, width: 64, height: 64).pixels()
        #expect(Set(picture).count > 20, "the pattern has detail at full resolution")

        // Present already: skipped, not rewritten.
        let date = try DemoFolders.modificationDate(folder + "/gigapixel.jpg")
        try DemoGallery.writeGigapixelImage(into: folder, size: size)
        #expect(try DemoFolders.modificationDate(folder + "/gigapixel.jpg") == date)
    }

    @Test func gigapixelRefusesImpossibleSizes() {
        #expect(throws: DemoGalleryError.invalidSize(width: 0, height: 10)) {
            try DemoGallery.writeGigapixelImage(into: NSTemporaryDirectory(), size: PixelSize(width: 0, height: 10))
        }
        #expect(throws: DemoGalleryError.invalidSize(width: 70_000, height: 100)) {
            try DemoGallery.writeGigapixelImage(into: NSTemporaryDirectory(), size: PixelSize(width: 70_000, height: 100))
        }
    }

    @Test func theRealGigapixelIsAtLeastOneGigapixel() {
        let size = DemoGallery.gigapixelSize
        #expect(size.width * size.height >= 1_000_000_000)
    }
}

/// Temporary folders and file dates for the demo tests.
enum DemoFolders {
    static func make(_ name: String) throws -> String {
        try TestScratch.folder("demo-\(name)")
    }

    /// Nanosecond modification time, so a rewrite within the same second still shows.
    static func modificationDate(_ path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
    }
}

/// Percentages reported from libvips's computing thread.
final class PercentLog: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []

    func add(_ value: Int) {
        lock.lock()
        defer { lock.unlock() }
        list.append(value)
    }

    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return list
    }
}
