import Foundation
import Imaging
import ScrollGeometry

/// The deepest level's rows read from a source with libjpeg (`SourceTileRows` over `ts_jpeg_rows_*`, C over
/// files an uploader chose). Any bytes give an error or tiles; where libvips's strict load decodes the file as
/// the build would (grey or RGB, turned upright and through its profile as `SourceImage` shows it), every tile
/// is libvips's pixels of it exactly, and where libvips refuses the
/// file, the rows are refused too, so no tile is ever cut from a source the build could not have read.
enum JPEGRowsTarget {
    nonisolated(unsafe) static var inputs = 0

    static func run(_ bytes: [UInt8]) {
        if inputs == 0 { try? Vips.start() }
        inputs += 1
        // A new name for every input: libvips's operation cache answers a random-access load of a name it has loaded
        // before with the old file's pixels.
        let path = NSTemporaryDirectory() + "/jpeg-rows-\(getpid())-\(inputs).jpg"
        defer { unlink(path) }
        guard (try? Data(bytes).write(to: URL(fileURLWithPath: path))) != nil else { return }
        // The build's view of the file: its size, and its pixels where it decodes them whole.
        // CMYK files (4 bands) are read by libvips, converted as the build converts them: not this target's.
        // The sizes and pixels as shown (`SourceImage`: an orientation tag turns them, a profile converts them).
        guard let stored = try? VImage.open(path), stored.width * stored.height <= 1 << 20,
              stored.bands == 1 || stored.bands == 3, let header = try? ImageHeader.read(path) else { return }
        let pyramid = Pyramid(width: header.width, height: header.height, tileSize: 254, overlap: 1)
        let level = pyramid.maxLevel, grid = pyramid.tileGrid(ofLevel: level)
        let shown = try? SourceImage.open(path, strict: true)
        let reference = try? shown?.pixels()
        var tiles: [SourceTileRows.Tile] = []
        do {
            let rows = try SourceTileRows(source: path, pyramid: pyramid)
            for row in 0..<grid.rows {
                tiles += try rows.tiles(row: row, columns: Array(0..<grid.columns))
            }
        } catch {
            return
        }
        guard let reference else {
            return FuzzCheck.require(false, "rows read from a file libvips's strict load refuses")
        }
        let bands = shown?.bands ?? stored.bands
        FuzzCheck.require(tiles.allSatisfy { $0.bands == bands }, "not libvips's \(bands) bands")
        for tile in tiles {
            var expected = [UInt8]()
            for y in tile.rect.y..<(tile.rect.y + tile.rect.height) {
                let start = (y * header.width + tile.rect.x) * bands
                expected += reference[start..<(start + tile.rect.width * bands)]
            }
            FuzzCheck.require(tile.pixels == expected, "tile \(tile.column) at \(tile.rect.y) is not libvips's pixels")
        }
    }
}
