import Foundation
import Imaging
import ScrollGeometry
import Testing
import TestSupport

/// The libjpeg-turbo tile decoder: the same pixels as libvips decoding the whole file and cropping,
/// for any rectangle, and errors (never crashes) for anything that is not a whole tile.
@Suite struct JPEGTileTests {
    /// Decodes `rect` of the file into a fresh buffer of `bands` bytes per pixel.
    private func decode(_ path: String, _ rect: PixelRect, bands: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: rect.width * rect.height * bands)
        try pixels.withUnsafeMutableBufferPointer { buffer in
            try JPEGTile.decode(path, rect: rect, into: buffer.baseAddress!, stride: rect.width * bands, bands: bands)
        }
        return pixels
    }

    @Test func anyRectangleDecodesToLibvipsPixels() throws {
        let folder = try TestImages.folder()
        // 4:2:0 chroma (libvips's default below Q90) is where cropped upsampling could differ.
        for (quality, name) in [(85, "q85.jpg"), (95, "q95.jpg")] {
            let path = "\(folder)/\(name)"
            let source = try VImage.fromPixels(TestImages.pixels(width: 256, height: 200), width: 256, height: 200, bands: 3)
            try source.saveJPEG(to: path, quality: quality)
            let whole = try VImage.open(path)
            #expect(try JPEGTile.components(path) == 3)
            var rng = SystemRandomNumberGenerator()
            var rects = [PixelRect(x: 0, y: 0, width: 256, height: 200), PixelRect(x: 1, y: 1, width: 254, height: 198),
                         PixelRect(x: 255, y: 199, width: 1, height: 1), PixelRect(x: 17, y: 33, width: 15, height: 1)]
            for _ in 0..<300 {
                let x = Int.random(in: 0..<256, using: &rng), y = Int.random(in: 0..<200, using: &rng)
                rects.append(PixelRect(x: x, y: y, width: Int.random(in: 1...(256 - x), using: &rng),
                                       height: Int.random(in: 1...(200 - y), using: &rng)))
            }
            for rect in rects {
                let expected = try whole.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
                #expect(try decode(path, rect, bands: 3) == expected, "Q\(quality) \(rect)")
            }
        }
    }

    @Test func greyTilesDecodeToOneBandOrToRGB() throws {
        let folder = try TestImages.folder()
        let path = folder + "/grey.jpg"
        let grey = try VImage.fromPixels(TestImages.pixels(width: 64, height: 48), width: 64, height: 48, bands: 3).grayscale()
        try grey.saveJPEG(to: path, quality: 90)
        #expect(try JPEGTile.components(path) == 1)
        let rect = PixelRect(x: 5, y: 7, width: 40, height: 30)
        let one = try decode(path, rect, bands: 1)
        #expect(one == (try VImage.open(path).crop(x: 5, y: 7, width: 40, height: 30).pixels()))
        let three = try decode(path, rect, bands: 3)
        #expect(three == one.flatMap { [$0, $0, $0] })
    }

    @Test func whatIsNotAWholeTileIsAnError() throws {
        let folder = try TestImages.folder()
        let path = folder + "/tile.jpg"
        try TestImages.writeJPEG(width: 100, height: 80, to: path)
        let inside = PixelRect(x: 0, y: 0, width: 10, height: 10)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let truncated = folder + "/truncated.jpg"
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: truncated))
        let text = folder + "/text.jpg"
        try Data("not a jpeg".utf8).write(to: URL(fileURLWithPath: text))
        let empty = folder + "/empty.jpg"
        try Data().write(to: URL(fileURLWithPath: empty))
        for bad in [folder + "/missing.jpg", truncated, text, empty, folder] {
            #expect(throws: VipsError.self, "\(bad)") { _ = try decode(bad, inside, bands: 3) }
        }
        for rect in [PixelRect(x: 95, y: 0, width: 10, height: 10), PixelRect(x: 0, y: 75, width: 10, height: 10),
                     PixelRect(x: -1, y: 0, width: 10, height: 10), PixelRect(x: 0, y: 0, width: 0, height: 10)] {
            #expect(throws: VipsError.self, "\(rect)") { _ = try decode(path, rect, bands: 3) }
        }
        #expect(throws: VipsError.self) { _ = try decode(path, inside, bands: 4) }
        #expect(throws: VipsError.self) { _ = try JPEGTile.components(text) }
    }
}
