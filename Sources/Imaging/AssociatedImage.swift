import CVipsShims
import CVips
import Foundation
import ScrollGeometry

/// The pictures a slide keeps beside its levels (OpenSlide's associated images: the label, the macro photograph
/// of the glass, a thumbnail), read whole: they are small.
extension PyramidalSource {
    /// Largest side an associated image is given at: a macro photograph is rarely over 2,000 pixels, but nothing
    /// in the file bounds it.
    public static let associatedMaxSide = 2048

    /// Associated image `name` (one of `associatedImages`) as every answer shows pixels (8-bit sRGB, three
    /// bands), shrunk to at most `associatedMaxSide` a side; nil when the slide has none of that name.
    ///
    /// Read through `openslideload`'s `attach_associated`, which puts every associated image on level 0's header
    /// as a field, never through its `associated=` option: Debian's libvips 8.14.1 crashes there (libvips issue
    /// 3384, fixed in 8.14.2).
    public func associatedImage(_ name: String) throws -> VImage? {
        guard format == .openslide, associatedImages.contains(name) else { return nil }
        let header = try VipsErrorLedger.attributed(to: path) {
            guard let image = ts_load_level("openslideload", path, "attach_associated", 1) else {
                throw VipsError.take(or: "libvips cannot open the slide's associated images", source: path)
            }
            return VImage(taking: image)
        }
        guard let attached = header.imageField("openslide.associated." + name) else { return nil }
        var shown = try Self.shown(attached, load: .openslide(level: 0))
        let side = max(shown.width, shown.height)
        if side > Self.associatedMaxSide {
            let scale = Double(Self.associatedMaxSide) / Double(side)
            shown = try shown.resize(horizontal: scale, vertical: scale)
        }
        return shown
    }
}
