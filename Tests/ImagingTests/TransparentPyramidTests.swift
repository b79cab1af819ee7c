import Foundation
import ScrollGeometry
import TestSupport
import Testing
@testable import Imaging

/// A transparent source's pyramid (issue 37, 2b): PNG tiles with its alpha beside the JPEG ones at every level,
/// a PNG preview, JPEG tiles laid over the builder's background; an opaque source gets none of the PNGs.
@Suite struct TransparentPyramidTests {
    static let background = Background(red: 200, green: 40, blue: 10)

    func build(_ source: String, in folder: String) throws -> (Pyramid, [PyramidPart], String) {
        let work = folder + "/work", out = folder + "/pyramid"
        for path in [work, out] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        var parts: [PyramidPart] = []
        let pyramid = try PyramidBuilder(background: Self.background).build(source: source, into: work) { part in
            parts.append(part)
            switch part.kind {
            case .base:
                for name in try FileManager.default.contentsOfDirectory(atPath: part.folder) {
                    try PyramidBuilder.move(part.folder + "/" + name, to: out + "/" + name)
                }
            case .level:
                try PyramidBuilder.move(part.folder, to: "\(out)/image_files/\(part.levels.lowerBound)")
            }
        }
        return (pyramid, parts, out)
    }

    @Test func everyLevelHasPNGTilesWithTheAlphaAndJPEGsOverTheBackground() throws {
        let folder = try TestImages.folder()
        let source = folder + "/logo.png"
        try TestImages.writeTransparentPNG(width: 1100, height: 600, to: source)
        let (pyramid, parts, out) = try build(source, in: folder)
        #expect(parts.allSatisfy { $0.alpha })
        let read = try VImage.open(source)
        // libvips's reading laid over the background, shrunk level by level as dzsave does: what every level shows.
        var shown = try read.flatten(red: 200, green: 40, blue: 10)
        for level in pyramid.levels.reversed() {
            let grid = pyramid.tileGrid(ofLevel: level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let png = try VImage.open("\(out)/image_files/\(level)/\(column)_\(row).png")
                    let jpeg = try VImage.open("\(out)/image_files/\(level)/\(column)_\(row).jpeg")
                    let rect = pyramid.tileRect(level: level, column: column, row: row)
                    #expect(png.bands == 4 && png.width == rect.width && png.height == rect.height, "\(level)/\(column)_\(row)")
                    #expect(jpeg.bands == 3 && jpeg.width == rect.width && jpeg.height == rect.height)
                    let expected = try shown.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
                    // The PNG laid over the same background: that picture but for rounding (no colour of an
                    // invisible pixel mixed in); the JPEG: that picture but for its encoding.
                    let pngPSNR = TestImages.psnr(try png.flatten(red: 200, green: 40, blue: 10).pixels(), expected)
                    #expect(pngPSNR > 40, "\(level)/\(column)_\(row): \(pngPSNR) dB")
                    let jpegPSNR = TestImages.psnr(try jpeg.pixels(), expected)
                    #expect(jpegPSNR > 20, "\(level)/\(column)_\(row): \(jpegPSNR) dB")
                }
            }
            shown = try shown.halved()
        }
        // The deepest level is the source's own pixels, alpha and all.
        let rect = pyramid.tileRect(level: pyramid.maxLevel, column: 1, row: 1)
        let tile = try VImage.open("\(out)/image_files/\(pyramid.maxLevel)/1_1.png")
        #expect(try tile.pixels() == read.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels())

        let preview = try VImage.open(out + "/" + PyramidBuilder.alphaPreviewName)
        let previewLevel = pyramid.size(ofLevel: pyramid.previewLevel(maxSide: 1024))
        #expect(preview.bands == 4 && preview.width == previewLevel.width && preview.height == previewLevel.height)
    }

    @Test func anOpaqueSourceGetsNoPNGs() throws {
        let folder = try TestImages.folder()
        let source = folder + "/plain.png"
        try TestImages.writePNG(width: 600, height: 300, to: source)
        let (pyramid, parts, out) = try build(source, in: folder)
        #expect(parts.allSatisfy { !$0.alpha })
        #expect(!FileManager.default.fileExists(atPath: out + "/" + PyramidBuilder.alphaPreviewName))
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(out)/image_files/\(pyramid.maxLevel)")
        #expect(!names.isEmpty && names.allSatisfy { $0.hasSuffix(".jpeg") })
    }

    @Test func backgroundsAreReadAsHexOrByName() {
        #expect(Background("#102030") == Background(red: 16, green: 32, blue: 48))
        #expect(Background("A0b0C0") == Background(red: 160, green: 176, blue: 192))
        #expect(Background("white") == .white && Background("BLACK") == Background(red: 0, green: 0, blue: 0))
        for bad in ["", "#12345", "#1234567", "12345g", "+12345", "-12345", "#ff ff0", "rgb(1,2,3)", "#éééééé"] {
            #expect(Background(bad) == nil, "\(bad)")
        }
        #expect(Background(red: 1, green: 171, blue: 255).hex == "#01abff")
    }
}
