import CVipsShims
import CVips
import Foundation
import ScrollGeometry

/// A lossless copy of a source image, kept so that regions of lossless sources can be answered
/// with the source's own pixels: a tiled, pyramidal, deflate-compressed TIFF, each page half the
/// size of the one before.
///
/// Why a copy and not the source itself: random access into a PNG makes libvips decode the
/// whole file on every open (and spill it to a temporary file above 100 MB), while a tiled TIFF
/// decodes only the 256-pixel tiles a region touches. The copy is written once, on the first
/// request that needs it, in one sequential pass (docs/iiif.md#lossless-regions has the costs).
/// Full-resolution regions come from page 0 unchanged: the source's pixels exactly, after the
/// same reading (`SourceImage`: upright, 8-bit sRGB on white) that the pyramid gets. Smaller outputs come from the
/// smallest page that still has the resolution, resized like the pyramid reader does.
public final class LosslessPyramid: RegionReading, @unchecked Sendable {
    /// Pages, largest first; opened once and shared (libvips images are safe to crop from many threads).
    private let pages: [VImage]
    public let width: Int
    public let height: Int
    public let kernel: VipsKernel

    /// Opens a copy written by `write`.
    public init(path: String, kernel: VipsKernel = VIPS_KERNEL_LINEAR) throws {
        try Vips.start()
        var pages: [VImage] = []
        // A pyramid halves down to one tile: 64 pages would be an image 2^64 pixels wide.
        for page in 0..<64 {
            guard let image = ts_tiffload_page(path, Int32(page)) else {
                _ = VipsError.take(or: "")  // "page out of range" ends the list: drain it
                break
            }
            pages.append(VImage(taking: image))
        }
        guard let first = pages.first else { throw VipsError(message: "no pages in the lossless copy \(path)") }
        self.pages = pages
        width = first.width
        height = first.height
        self.kernel = kernel
    }

    /// Writes the copy of `source` to `path` (through a temporary file renamed into place, so a
    /// crash never leaves half a copy under the final name).
    public static func write(source: String, to path: String) throws {
        try Vips.start()
        let image = try SourceImage.open(source, strict: false, scratch: (path as NSString).deletingLastPathComponent)
        let temporary = "\(path).\(UUID().uuidString.prefix(8)).tmp"
        guard ts_tiffsave_pyramid(image.pointer, temporary) == 0 else {
            unlink(temporary)
            throw VipsError.take(or: "cannot write the lossless copy", source: source)
        }
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 { fsync(descriptor); close(descriptor) }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw VipsError(message: "cannot rename the lossless copy into place: errno \(errno)")
        }
    }

    public func read(_ region: PixelRect, size: PixelSize) throws -> VImage {
        // The smallest page on which the region still spans at least the output's pixels.
        var chosen = pages[0]
        var rect = region
        for page in pages.dropFirst() {
            let candidate = Self.rect(region, onPageOf: page, fullWidth: width, fullHeight: height)
            guard candidate.width >= size.width, candidate.height >= size.height else { break }
            chosen = page
            rect = candidate
        }
        let cut = try chosen.crop(x: rect.x, y: rect.y, width: rect.width, height: rect.height)
        return try cut.resized(to: size, kernel: kernel)
    }

    /// The page pixels `region` (full resolution) covers: floor of its start, ceiling of its end,
    /// inside the page. Pages are at most as large as the image, so nothing here can overflow.
    static func rect(_ region: PixelRect, onPageOf page: VImage, fullWidth: Int, fullHeight: Int) -> PixelRect {
        func span(_ start: Int, _ length: Int, _ pageSide: Int, _ full: Int) -> (Int, Int) {
            let first = start * pageSide / full
            let end = min(pageSide, ((start + length) * pageSide + full - 1) / full)
            return (first, max(1, end - first))
        }
        let (x, w) = span(region.x, region.width, page.width, fullWidth)
        let (y, h) = span(region.y, region.height, page.height, fullHeight)
        return PixelRect(x: x, y: y, width: w, height: h)
    }
}
