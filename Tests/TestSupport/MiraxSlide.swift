import Foundation

/// Writes a MIRAX slide that OpenSlide 3.4.1 reads as `mirax`: `name.mrxs` (OpenSlide only checks that it exists;
/// a scanner's holds a small picture, here the coarsest level's JPEG, since Tilescope refuses an empty file) beside a folder `name/` of `Slidedat.ini`, `Index.dat` and one data file of JPEGs. The least its reader needs:
/// the slide is a grid of camera images (`IMAGENUMBER_X` by `_Y`) of 256 x 256 without overlap, so OpenSlide places
/// them itself (no position buffer); each zoom level is a `Slidedat.ini` section whose images each cover twice as
/// many camera images a side as the level before (`IMAGE_CONCAT_FACTOR` 1, 0 for level 0), still 256 x 256, white
/// past the slide's edge; `Index.dat` is the version `01.02` and the slide id, then a pointer to a table of one
/// pointer per level, each to a page of records (image index, offset, length, data file) of that level's JPEGs.
public enum MiraxSlide {
    static let side = 256

    /// `source` (a file libvips reads, its size a multiple of 256 each way) as a MIRAX at `path` (ending `.mrxs`)
    /// of `levels` levels, `micronsPerPixel` wide at level 0.
    public static func write(source: String, to path: String, levels: Int, micronsPerPixel: Double) throws {
        let width = try LeicaSlide.header("width", of: source), height = try LeicaSlide.header("height", of: source)
        guard width % side == 0, height % side == 0, path.hasSuffix(".mrxs")
        else { throw TestFailure("a MIRAX here is a .mrxs of whole 256 x 256 camera images, not \(width) x \(height)") }
        let folder = String(path.dropLast(".mrxs".count))
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let (across, down) = (width / side, height / side)
        var data: [UInt8] = []
        var records: [[(index: Int, offset: Int, length: Int)]] = []
        for level in 0..<levels {
            let span = side << level
            var made: [(index: Int, offset: Int, length: Int)] = []
            for y in stride(from: 0, to: down, by: 1 << level) {
                for x in stride(from: 0, to: across, by: 1 << level) {
                    let jpeg = try image(of: source, x: x * side, y: y * side, width: min(span, width - x * side),
                                         height: min(span, height - y * side), shrink: 1 << level, in: folder)
                    made.append((y * across + x, data.count, jpeg.count))
                    data += jpeg
                }
            }
            records.append(made)
        }
        try Data(data).write(to: URL(fileURLWithPath: folder + "/Data0000.dat"))
        let coarsest = records[levels - 1][0]
        try Data(data[coarsest.offset..<(coarsest.offset + coarsest.length)]).write(to: URL(fileURLWithPath: path))
        let slideID = "tilescope-test-slide"
        try Data(index(slideID: slideID, records: records)).write(to: URL(fileURLWithPath: folder + "/Index.dat"))
        let sections = (0..<levels).map { level in
            """
            [LAYER_0_LEVEL_\(level)_SECTION]
            IMAGE_CONCAT_FACTOR=\(level == 0 ? 0 : 1)
            OVERLAP_X=0
            OVERLAP_Y=0
            MICROMETER_PER_PIXEL_X=\(micronsPerPixel * Double(1 << level))
            MICROMETER_PER_PIXEL_Y=\(micronsPerPixel * Double(1 << level))
            IMAGE_FILL_COLOR_BGR=16777215
            DIGITIZER_WIDTH=\(side)
            DIGITIZER_HEIGHT=\(side)
            IMAGE_FORMAT=JPEG

            """
        }
        let slidedat = """
            [GENERAL]
            SLIDE_VERSION=01.03
            SLIDE_ID=\(slideID)
            IMAGENUMBER_X=\(across)
            IMAGENUMBER_Y=\(down)
            OBJECTIVE_MAGNIFICATION=20
            CameraImageDivisionsPerSide=1
            [HIERARCHICAL]
            HIER_COUNT=1
            HIER_0_NAME=Slide zoom level
            HIER_0_COUNT=\(levels)
            \((0..<levels).map { "HIER_0_VAL_\($0)=ZoomLevel_\($0)\nHIER_0_VAL_\($0)_SECTION=LAYER_0_LEVEL_\($0)_SECTION" }.joined(separator: "\n"))
            NONHIER_COUNT=0
            INDEXFILE=Index.dat
            [DATAFILE]
            FILE_COUNT=1
            FILE_0=Data0000.dat

            """ + sections.joined()
        try slidedat.write(toFile: folder + "/Slidedat.ini", atomically: true, encoding: .utf8)
    }

    /// One stored image: the source's region shrunk by `shrink`, on a white 256 x 256 camera image, as a JPEG.
    static func image(of source: String, x: Int, y: Int, width: Int, height: Int, shrink: Int, in folder: String) throws -> [UInt8] {
        let cut = folder + "/cut.v", shrunk = folder + "/shrunk.v", jpeg = folder + "/image.jpg"
        defer { for file in [cut, shrunk, jpeg] { try? FileManager.default.removeItem(atPath: file) } }
        try AperioSlide.run("/usr/bin/vips", ["crop", source, cut, "\(x)", "\(y)", "\(width)", "\(height)"])
        try AperioSlide.run("/usr/bin/vips", ["shrink", cut, shrunk, "\(shrink)", "\(shrink)"])
        try AperioSlide.run("/usr/bin/vips", ["embed", shrunk, jpeg + "[Q=90,strip]", "0", "0", "\(side)", "\(side)",
                                              "--extend", "white"])
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg)))
    }

    /// `Index.dat`: version and slide id, the hierarchical root (a pointer to the table of levels) and the
    /// non-hierarchical one (none), then per level a pointer to a 0 and a pointer to its one page of records.
    static func index(slideID: String, records: [[(index: Int, offset: Int, length: Int)]]) -> [UInt8] {
        var bytes = Array("01.02\(slideID)".utf8)
        let root = bytes.count
        bytes += le(root + 8) + le(0)
        let table = bytes.count
        bytes += [UInt8](repeating: 0, count: 4 * records.count)
        for (level, made) in records.enumerated() {
            let head = bytes.count
            bytes.replaceSubrange((table + 4 * level)..<(table + 4 * level + 4), with: le(head))
            bytes += le(0) + le(head + 8)
            bytes += le(made.count) + le(0)  // records in the page, no next page
            for record in made { bytes += le(record.index) + le(record.offset) + le(record.length) + le(0) }
        }
        return bytes
    }

    private static func le(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
}
