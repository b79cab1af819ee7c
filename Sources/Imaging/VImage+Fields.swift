import CVipsShims
import CVips
import Foundation

/// Metadata fields a loader put on an image (OpenSlide's properties, a TIFF's page count), read only when
/// present: asking libvips for a missing field leaves an error line in its global buffer.
extension VImage {
    /// The field as text: a string field as it is, any other type as libvips prints it; nil when absent.
    func stringField(_ name: String) -> String? {
        guard vips_image_get_typeof(pointer, name) != 0 else { return nil }
        var text: UnsafeMutablePointer<CChar>?
        guard vips_image_get_as_string(pointer, name, &text) == 0, let text else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// An int field, or nil when absent or of another type.
    func intField(_ name: String) -> Int? {
        guard vips_image_get_typeof(pointer, name) == VImage.intType else { return nil }
        var value: Int32 = 0
        guard vips_image_get_int(pointer, name, &value) == 0 else { return nil }
        return Int(value)
    }

    /// A field holding a number as text (OpenSlide's properties are strings): nil when absent or not a number.
    func numberField(_ name: String) -> Double? {
        stringField(name).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// An image attached as a field (OpenSlide's associated images with `attach_associated`), or nil when absent
    /// or of another type.
    func imageField(_ name: String) -> VImage? {
        guard vips_image_get_typeof(pointer, name) == vips_image_get_type() else { return nil }
        var image: UnsafeMutablePointer<VipsImage>?
        guard vips_image_get_image(pointer, name, &image) == 0, let image else { return nil }
        return VImage(taking: image)
    }

    /// GLib's G_TYPE_INT (a macro Swift does not see).
    private static let intType = g_type_from_name("gint")
}
