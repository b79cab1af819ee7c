import CVipsShims
import CVips
import Foundation

/// A source image as every answer shows it: upright (its EXIF or TIFF orientation applied), in sRGB
/// (through its embedded ICC profile, relative colorimetric, as libvips's `icc_transform` converts),
/// 8 bits a channel, alpha flattened onto a background (`Background`, white unless set) or kept, and
/// carrying no profile, EXIF or orientation of its own. The pyramid's tiles, its preview, the lossless copy and the rows the deepest tiles are cut from
/// all come from this one reading, so every level, format and IIIF answer shows the same picture.
public enum SourceImage {
    /// What becomes of an alpha band: laid over a colour (JPEG answers, which cannot carry one), or kept
    /// (the PNG tiles of a transparent image, from which its PNG, WebP, AVIF and IIIF answers are made).
    public enum Alpha: Sendable, Equatable {
        case flattened(onto: Background)
        case kept
    }

    /// Decoded pixels up to this size are held in memory to be turned upright; a larger source is written
    /// once to a scratch file of libvips's own format first (random access is what a rotation needs).
    static let uprightInMemoryBytes = 256 << 20

    /// Opens `path` for one top-to-bottom pass and converts it as shown. `strict` fails on the first
    /// decode error. `scratch` is a folder for a rotated source too large for memory (its scratch file is
    /// unlinked at once and goes when the image does).
    public static func open(_ path: String, strict: Bool = true, scratch: String = NSTemporaryDirectory(),
                            alpha: Alpha = .flattened(onto: .white)) throws -> VImage {
        let image = try VImage.open(path, sequential: true, strict: strict)
        return try displayable(upright(image, scratch: scratch), alpha: alpha)
    }

    /// The EXIF or TIFF orientation (1 to 8) of an opened image; 1 when it has none.
    public static func orientation(of image: VImage) -> Int { Int(ts_orientation(image.pointer)) }

    /// Whether the stored pixels are the shown ones but for their encoding: upright and without an ICC
    /// profile, so a decoder of their own (libjpeg at a reduced scale, row by row) may read them.
    public static func isShownAsStored(_ image: VImage) -> Bool {
        orientation(of: image) == 1 && !hasProfileToConvert(image)
    }

    /// Whether the image carries a profile that changes its colours. Cameras tag most JPEGs with an sRGB
    /// profile: converting through it changes no value by more than a rounding, and would cost each such build
    /// a colour transform of every pixel and the libvips row reader instead of libjpeg's. So the profile is
    /// tried on a probe of 125 colours (every mix of 0, 64, 128, 192 and 255; a grey ramp for one band):
    /// within one level of sRGB on every one, it is taken for sRGB. By what it does, not by its name: a
    /// linear-light variant of an sRGB profile keeps sRGB's description.
    static func hasProfileToConvert(_ image: VImage) -> Bool {
        guard ts_has_icc(image.pointer) != 0 else { return false }
        guard image.format == VIPS_FORMAT_UCHAR, image.interpretation != VIPS_INTERPRETATION_CMYK else { return true }
        let bands = image.bands <= 2 ? 1 : 3
        let levels: [UInt8] = [0, 64, 128, 192, 255]
        let colours: [UInt8] = bands == 1 ? (0..<125).map { UInt8($0 * 255 / 124) }
            : levels.flatMap { r in levels.flatMap { g in levels.flatMap { b in [r, g, b] } } }
        guard let probe = try? VImage.fromPixels(colours, width: 125, height: 1, bands: bands),
              let tagged = try? VImage.make({ ts_with_icc_of(probe.pointer, image.pointer, $0) }),
              let converted = try? VImage.make({ ts_icc_to_srgb(tagged.pointer, $0) }).pixels()
        else {
            _ = VipsError.take(or: "")
            return true
        }
        let outBands = converted.count / 125
        for pixel in 0..<125 {
            for band in 0..<3 {
                let expected = Int(colours[pixel * bands + (bands == 1 ? 0 : band)])
                if abs(Int(converted[pixel * outBands + min(band, outBands - 1)]) - expected) > 1 { return true }
            }
        }
        return false
    }

    /// Orientations 5 to 8 turn the picture a quarter: its shown width is its stored height.
    public static func swapsSides(_ orientation: Int) -> Bool { (5...8).contains(orientation) }

    /// The image turned upright. A sequential source cannot be rotated as it streams (a quarter turn
    /// reads columns), so its pixels are decoded first: into memory, or into a scratch file when large.
    static func upright(_ image: VImage, scratch: String) throws -> VImage {
        guard orientation(of: image) != 1 else { return image }
        let bytes = image.width * image.height * image.bands * image.bytesPerBand
        let decoded: VImage
        if bytes <= uprightInMemoryBytes {
            decoded = try image.inMemory()
        } else {
            let path = (scratch as NSString).appendingPathComponent("upright-\(UUID().uuidString).v")
            guard ts_write_vips(image.pointer, path) == 0 else {
                unlink(path)
                throw VipsError.take(or: "cannot decode the source to turn it upright")
            }
            // Opened by a fresh name (libvips caches random-access opens by name) and unlinked at once:
            // the open file stays readable while the image lives.
            defer { unlink(path) }
            decoded = try VImage.open(path)
        }
        return try VImage.make { ts_autorot(decoded.pointer, $0) }
    }

    /// 8-bit sRGB or greyscale, alpha flattened or kept as `alpha` says, the colours of its ICC profile (or of
    /// `profileSource`'s: a reduced decode made without libvips carries none of its own), and no profile left on it.
    static func displayable(_ image: VImage, profileSource: VImage? = nil,
                            alpha: Alpha = .flattened(onto: .white)) throws -> VImage {
        var result = image
        let grey = result.interpretation == VIPS_INTERPRETATION_B_W || result.interpretation == VIPS_INTERPRETATION_GREY16
            || result.bands <= 2
        // The image whose profile counts, tried once (`hasProfileToConvert` runs a colour transform).
        let holder = ts_has_icc(result.pointer) == 0 ? profileSource ?? result : result
        var profiled = false
        if hasProfileToConvert(holder) {
            if holder !== result { result = try VImage.make { ts_with_icc_of(result.pointer, holder.pointer, $0) } }
            // A profile that does not fit the pixels (an RGB profile on grey pixels, a damaged one):
            // libvips's own conversion by the interpretation, below, as if there were none.
            if let converted = try? VImage.make({ ts_icc_to_srgb(result.pointer, $0) }) {
                result = converted
                profiled = true
            } else {
                _ = VipsError.take(or: "")
            }
        }
        // 8 bits (alpha too) before the background is laid under: its colour is given in 8-bit values, which a
        // 16-bit image would read as near black.
        let interpretation = result.interpretation
        let plain = interpretation == VIPS_INTERPRETATION_sRGB || interpretation == VIPS_INTERPRETATION_B_W
        if !plain || result.format != VIPS_FORMAT_UCHAR { result = try result.toSRGB() }
        if result.format != VIPS_FORMAT_UCHAR { result = try result.castToUChar() }
        if result.hasAlpha, case let .flattened(background) = alpha {
            result = try result.flatten(red: Double(background.red), green: Double(background.green),
                                        blue: Double(background.blue))
        }
        // A grey source stays one band (and its alpha): through its profile a neutral grey comes out with red,
        // green and blue equal.
        if profiled && grey && result.bands >= 3 {
            let green = try result.extractBand(1)
            if result.bands == 4 {
                let opacity = try result.extractBand(3)
                result = try VImage.make { ts_bandjoin2(green.pointer, opacity.pointer, $0) }
            } else {
                result = green
            }
        }
        return try VImage.make { ts_without_profile(result.pointer, $0) }
    }
}
