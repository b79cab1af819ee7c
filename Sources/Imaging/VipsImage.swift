import CVipsShims
import CVips

/// An owned reference to a libvips image: a lazy, immutable pipeline that is safe to
/// share across threads. Every operation returns a new image; nothing is computed
/// until pixels are written somewhere.
public final class VImage: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<VipsImage>

    init(taking pointer: UnsafeMutablePointer<VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        g_object_unref(pointer)
    }

    /// Opens a file, reading only its header. The path is taken literally.
    /// `sequential` suits one top-to-bottom pass (dzsave); random access suits crops. libvips 8.14's
    /// operation cache answers a random-access open of a name it has opened before with the old file's
    /// image: open random-access only files that are never rewritten in place (a version's tiles), and
    /// sources sequentially (`ImageHeader.read`).
    /// `strict` fails on the first decode error, for untrusted uploads.
    public static func open(_ path: String, sequential: Bool = false, strict: Bool = false) throws -> VImage {
        guard let image = ts_image_open(path, sequential ? 1 : 0, strict ? 1 : 0) else {
            throw VipsError.take(or: "libvips cannot open the file", source: path)
        }
        return VImage(taking: image)
    }

    /// Wraps a freshly made image out-parameter, or throws libvips's error.
    static func make(_ operation: (UnsafeMutablePointer<UnsafeMutablePointer<VipsImage>?>) -> Int32) throws -> VImage {
        var out: UnsafeMutablePointer<VipsImage>?
        guard operation(&out) == 0, let image = out else {
            throw VipsError.take(or: "libvips operation failed")
        }
        return VImage(taking: image)
    }

    public var width: Int { Int(vips_image_get_width(pointer)) }
    public var height: Int { Int(vips_image_get_height(pointer)) }
    public var bands: Int { Int(vips_image_get_bands(pointer)) }
    public var hasAlpha: Bool { vips_image_hasalpha(pointer) != 0 }
    var interpretation: VipsInterpretation { vips_image_get_interpretation(pointer) }
    var bytesPerBand: Int { Int(vips_format_sizeof(format)) }
    var format: VipsBandFormat { vips_image_get_format(pointer) }
}

extension VImage {
    /// Pixels being filled before they become an image; freed unless an image takes them.
    final class PixelBuffer {
        let bytes: UnsafeMutablePointer<UInt8>
        let byteCount: Int
        fileprivate var owned = true

        init(byteCount: Int) throws {
            guard byteCount > 0, let memory = malloc(byteCount) else {
                throw VipsError(message: "cannot allocate \(byteCount) bytes of pixels")
            }
            bytes = memory.assumingMemoryBound(to: UInt8.self)
            self.byteCount = byteCount
        }

        deinit {
            if owned { free(bytes) }
        }
    }

    /// An image of 8-bit pixels (sRGB for 3 bands, grey for 1) that takes over `buffer`'s memory.
    convenience init(pixels buffer: PixelBuffer, width: Int, height: Int, bands: Int) throws {
        precondition(buffer.byteCount == width * height * bands)
        guard let image = ts_image_from_malloc(buffer.bytes, buffer.byteCount, Int32(width), Int32(height), Int32(bands)) else {
            throw VipsError.take(or: "cannot wrap \(width)x\(height) pixels")
        }
        buffer.owned = false
        self.init(taking: image)
    }
}
