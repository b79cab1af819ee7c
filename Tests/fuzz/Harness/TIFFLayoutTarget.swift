import Foundation
@testable import Imaging

/// `tiff-layout`: a file's bytes read as a TIFF's directories (`TIFFLayout`, what every probe of a new source
/// reads first, an upload named `.tif` included), then, for each directory whose tiles could be sent as stored
/// (`StoredJPEGTiles`), its first tiles read back. No trap and no read past what the file says; a tile read is a
/// JPEG (it starts with SOI) or nil.
enum TIFFLayoutTarget {
    /// One file per fuzzing process, rewritten for each input.
    static let path = "/dev/shm/tilescope-fuzz-tiff-\(getpid())"

    static func run(_ bytes: [UInt8]) {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
              let file = try? SourceFile(path: path), let layout = try? TIFFLayout.read(file) else { return }
        FuzzCheck.require(layout.pages.count <= TIFFLayout.maximumPages, "\(layout.pages.count) pages")
        FuzzCheck.require(layout.subIFDs.count <= TIFFLayout.maximumPages, "\(layout.subIFDs.count) SubIFDs")
        for directory in layout.pages + layout.subIFDs {
            FuzzCheck.require((directory.jpegTableBytes?.count ?? 0) <= StoredJPEGTiles.maximumTableBytes, "JPEGTables too long")
            guard let tiles = StoredJPEGTiles(directory) else { continue }
            for (column, row) in [(0, 0), (1, 0), (0, 1), (tiles.tilesAcross - 1, tiles.tilesDown - 1), (-1, 0), (tiles.tilesAcross, 0)] {
                guard let jpeg = try? tiles.jpeg(column: column, row: row, in: file) else { continue }
                FuzzCheck.require(jpeg.count >= 4 && jpeg[0] == 0xFF && jpeg[1] == 0xD8, "a tile that is no JPEG")
            }
        }
    }
}
