import Catalog
import Foundation
import Imaging
import ScrollGeometry

/// One pass down an image's source for the deepest-level AVIF tiles wanted of it (`SourceTilePasses`).
///
/// Version-safe: the source's size and modification time must be the version's before a row is read and
/// after (`SourceFingerprint.Stamp`), or the row's pixels could be a newer source's; then, as when the
/// source is gone or cannot be read, the tiles get the stored tile re-encoded losslessly as their final
/// answer (the same picture the JPEG gives), and the rest of the pass reads nothing more. Files go only
/// into the version's folder while it exists (`DerivedFile`).
struct SourceTilePass: Sendable {
    let record: ImageRecord
    let pyramid: Pyramid
    let files: DeepZoomFormatTiles
    /// The stored JPEG tile of the deepest level at a column and row.
    let tilePath: @Sendable (_ column: Int, _ row: Int) -> String

    /// Makes every tile `passes` hands this pass for `key` until it is told it is done.
    func run(_ passes: SourceTilePasses, _ key: String) {
        var reader: SourceTileRows?
        var sourceUsable = true
        var after = 0
        while true {
            let next = passes.next(key, from: after)
            guard case .row(let row, let columns) = next else {
                if next == .done { return }
                reader = nil  // .restart: rows above the reader's position, read from the top again
                after = 0
                continue
            }
            after = row + 1
            var tiles: [SourceTileRows.Tile] = []
            if sourceUsable {
                do {
                    guard SourceFingerprint.Stamp.read(record.sourcePath) == record.stamp else {
                        throw VipsError(message: "the source has changed since version \(record.version)")
                    }
                    if reader == nil { reader = try SourceTileRows(source: record.sourcePath, pyramid: pyramid) }
                    tiles = try reader!.tiles(row: row, columns: columns)
                    guard SourceFingerprint.Stamp.read(record.sourcePath) == record.stamp else {
                        throw VipsError(message: "the source changed while it was read")
                    }
                } catch {
                    Log.info("the deepest AVIF tiles of \(record.id) are its JPEG tiles: \(error)")
                    sourceUsable = false
                    reader = nil
                    tiles = []
                }
            }
            for column in columns {
                let path = tilePath(column, row)
                do {
                    try files.writeFromSource(tiles.first { $0.column == column }, level: pyramid.maxLevel,
                                              column: column, row: row, jpegPath: path)
                } catch {
                    Log.info("cannot make the avif tile \(record.id) \(pyramid.maxLevel)/\(column)_\(row): \(error)")
                }
            }
            passes.finished(columns.count)
        }
    }
}
