import Foundation

/// Writes a Leica SCN that OpenSlide 3.4.1 reads as `leica`: libvips's tiled JPEG pyramid in pages, then the
/// first page's ImageDescription replaced (libtiff's `tiffset`) by the SCN XML in the 2010/10/01 namespace. What
/// OpenSlide's reader needs of that XML: a `collection` with its size in nanometres, one brightfield `image` with
/// an objective (compared by `strcmp` without a check for its absence) and a `view` (size and offset in nm), and a
/// `dimension` per pyramid page naming its IFD. An image whose view is the whole collection at offset 0,0 is taken
/// for the macro, so the main image's view is offset by one nanometre: under a pixel, which OpenSlide rounds away.
public enum LeicaSlide {
    /// `source` (a file libvips reads) as an SCN at `path`, with pixels `micronsPerPixel` wide (kept as the TIFF
    /// resolution, which OpenSlide gives as `openslide.mpp-x`).
    public static func write(source: String, to path: String, micronsPerPixel: Double) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let measured = folder + "/leica-measured.v"
        let perMillimetre = "\(1000 / micronsPerPixel)"
        try AperioSlide.run("/usr/bin/vips", ["copy", source, measured, "--xres", perMillimetre, "--yres", perMillimetre])
        try AperioSlide.run("/usr/bin/vips", ["tiffsave", measured, path, "--tile", "--pyramid", "--compression", "jpeg",
                                              "--Q", "90", "--tile-width", "256", "--tile-height", "256", "--resunit", "cm"])
        try? FileManager.default.removeItem(atPath: measured)
        let pages = try (0..<header("n-pages", of: path)).map { page in
            (width: try header("width", of: "\(path)[page=\(page)]"), height: try header("height", of: "\(path)[page=\(page)]"))
        }
        let nanometres = pages[0].width * Int(micronsPerPixel * 1000), down = pages[0].height * Int(micronsPerPixel * 1000)
        let dimensions = pages.enumerated().map { page, size in
            "<dimension sizeX=\"\(size.width)\" sizeY=\"\(size.height)\" ifd=\"\(page)\"/>"
        }.joined()
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>\
            <scn xmlns="http://www.leica-microsystems.com/scn/2010/10/01">\
            <collection name="tilescope-test" sizeX="\(nanometres)" sizeY="\(down)">\
            <image name="main"><creationDate>2026-01-01T00:00:00.00Z</creationDate>\
            <device model="Tilescope test" version="1.0"/>\
            <pixels sizeX="\(pages[0].width)" sizeY="\(pages[0].height)">\(dimensions)</pixels>\
            <view sizeX="\(nanometres)" sizeY="\(down)" offsetX="1" offsetY="1" spacingZ="0"/>\
            <scanSettings><objectiveSettings><objective>40</objective></objectiveSettings>\
            <illuminationSettings><numericalAperture>0.7</numericalAperture>\
            <illuminationSource>brightfield</illuminationSource></illuminationSettings></scanSettings>\
            </image></collection></scn>
            """
        try AperioSlide.run("/usr/bin/tiffset", ["-d", "0", "-s", "270", xml, path])
    }

    /// A header field of `file` as `vipsheader` prints it.
    static func header(_ name: String, of file: String) throws -> Int {
        let outcome = try Command.run("/usr/bin/vipsheader", ["-f", name, file])
        guard outcome.status == 0, let value = Int(outcome.output.trimmingCharacters(in: .whitespacesAndNewlines))
        else { throw TestFailure("vipsheader -f \(name) \(file): \(outcome.output)") }
        return value
    }
}
