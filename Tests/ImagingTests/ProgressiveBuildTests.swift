import Foundation
import TestSupport
import ScrollGeometry
import Testing
@testable import Imaging

/// The parts of a progressive build: the base (descriptor, preview, coarse levels) first, then
/// each finer level, coarse to fine, every part complete when it is handed over.
@Suite struct ProgressiveBuildTests {
    /// What the builder handed over, and what its working folder held at that moment.
    final class Parts: @unchecked Sendable {
        var kinds: [PyramidPart.Kind] = []
        var levels: [ClosedRange<Int>] = []
        var fullPassStartedBeforeBase: Bool?
        var tileCounts: [Int: Int] = [:]
    }

    private func build(_ source: String, in folder: String) throws -> (Pyramid, Parts, String) {
        let work = folder + "/work"
        let out = folder + "/out"
        for path in [work, out + "/image_files"] {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        let parts = Parts()
        let pyramid = try PyramidBuilder().build(source: source, into: work) { part in
            parts.kinds.append(part.kind)
            parts.levels.append(part.levels)
            switch part.kind {
            case .base:
                // The full pass writes its tiles under work/rest/image_files.
                let fullTiles = (try? FileManager.default.contentsOfDirectory(atPath: work + "/rest/image_files")) ?? []
                parts.fullPassStartedBeforeBase = !fullTiles.isEmpty
                for level in part.levels {
                    parts.tileCounts[level] = try FileManager.default.contentsOfDirectory(
                        atPath: "\(part.folder)/image_files/\(level)").count
                }
                for name in try FileManager.default.contentsOfDirectory(atPath: part.folder) where name != "image_files" {
                    _ = rename("\(part.folder)/\(name)", "\(out)/\(name)")
                }
                for level in part.levels { _ = rename("\(part.folder)/image_files/\(level)", "\(out)/image_files/\(level)") }
            case .level:
                parts.tileCounts[part.levels.lowerBound] = try FileManager.default.contentsOfDirectory(atPath: part.folder).count
                _ = rename(part.folder, "\(out)/image_files/\(part.levels.lowerBound)")
            }
        }
        return (pyramid, parts, out)
    }

    private func expectWhole(_ pyramid: Pyramid, _ parts: Parts, _ out: String) throws {
        let preview = pyramid.previewLevel()
        #expect(parts.levels == [0...preview] + ((preview + 1)...max(preview, pyramid.maxLevel)).map { $0...$0 }
            .filter { $0.lowerBound > preview })
        #expect(parts.kinds == [.base] + Array(repeating: .level, count: pyramid.maxLevel - preview))
        for level in pyramid.levels {
            let grid = pyramid.tileGrid(ofLevel: level)
            #expect(parts.tileCounts[level] == grid.columns * grid.rows, "level \(level) was handed over whole")
            for (column, row) in [(0, 0), (grid.columns - 1, grid.rows - 1)] {
                let tile = try VImage.open("\(out)/image_files/\(level)/\(column)_\(row).jpeg")
                let rect = pyramid.tileRect(level: level, column: column, row: row)
                #expect(tile.width == rect.width && tile.height == rect.height, "tile \(level)/\(column)_\(row)")
            }
        }
        let descriptor = try String(contentsOfFile: out + "/image.dzi", encoding: .utf8)
        #expect(descriptor.contains("Height=\"\(pyramid.height)\"") && descriptor.contains("Width=\"\(pyramid.width)\""))
        let previewImage = try VImage.open(out + "/preview.jpeg")
        #expect(PixelSize(width: previewImage.width, height: previewImage.height) == pyramid.size(ofLevel: preview))
    }

    @Test func aJPEGHandsOverItsBaseBeforeTheFullPassStarts() throws {
        let folder = try TestImages.folder()
        try TestImages.writeJPEG(width: 5000, height: 3000, to: folder + "/source.jpg")
        let (pyramid, parts, out) = try build(folder + "/source.jpg", in: folder)
        #expect(pyramid == Pyramid(width: 5000, height: 3000))
        #expect(parts.fullPassStartedBeforeBase == false)
        try expectWhole(pyramid, parts, out)
    }

    @Test func otherFormatsHandOverTheirBaseAfterTheFullPass() throws {
        let folder = try TestImages.folder()
        try TestImages.writePNG(width: 2100, height: 1300, to: folder + "/source.png")
        let (pyramid, parts, out) = try build(folder + "/source.png", in: folder)
        #expect(parts.fullPassStartedBeforeBase == true)
        try expectWhole(pyramid, parts, out)
    }

    /// The reduced decode (1/8, then resized) shows the same picture as a full decode, and the
    /// preview-level tiles are cut from the preview itself, so a client swaps one for the other
    /// without a shift. A smooth source, so that JPEG's own losses stay small.
    @Test func theEarlyPreviewMatchesAFullDecodeAndItsOwnTiles() throws {
        let folder = try TestImages.folder()
        let (width, height) = (4100, 2300)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 255 / (width - 1))
                pixels[i + 1] = UInt8(y * 255 / (height - 1))
                pixels[i + 2] = UInt8(127.5 + 127.5 * sin(Double(x + 2 * y) / 300))
            }
        }
        try VImage.fromPixels(pixels, width: width, height: height, bands: 3).saveJPEG(to: folder + "/source.jpg", quality: 90)
        let (pyramid, _, out) = try build(folder + "/source.jpg", in: folder)
        let level = pyramid.previewLevel()
        let size = pyramid.size(ofLevel: level)
        let preview = try VImage.open(out + "/preview.jpeg")
        let full = try VImage.open(folder + "/source.jpg")
            .resize(horizontal: Double(size.width) / Double(width), vertical: Double(size.height) / Double(height))
        let grid = pyramid.tileGrid(ofLevel: level)
        for (column, row) in [(0, 0), (grid.columns - 1, grid.rows - 1)] {
            let rect = pyramid.tileRect(level: level, column: column, row: row)
            let own = try VImage.open("\(out)/image_files/\(level)/\(column)_\(row).jpeg").pixels()
            let cut = try preview.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
            #expect(TestImages.psnr(own, cut) > 35, "tile \(column)_\(row) is the preview's own pixels")
            let reference = try full.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height).pixels()
            #expect(TestImages.psnr(own, reference) > 30, "tile \(column)_\(row) shows what a full decode shows")
        }
    }
}
