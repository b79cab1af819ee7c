/// The image formats accepted for upload, recognised by the libvips loader that sniffs the file.
///
/// A closed list rather than "whatever libvips reads": uploads come from the network, and loaders
/// such as SVG, PDF or ImageMagick's parse far more than pixels.
public struct UploadFormat: Sendable, Equatable {
    public var name: String
    /// File name extensions, the usual one first.
    public var extensions: [String]
    /// The libvips loaders' own names for it: the nickname ("gifload") and the class-name stem
    /// ("VipsForeignLoadNsgifFile": libvips 8.14 reads GIF with libnsgif, so the stem is not the format's name).
    var loaderStems: [String]

    public static let accepted: [UploadFormat] = [
        UploadFormat(name: "JPEG", extensions: ["jpg", "jpeg", "jpe"], loaderStems: ["jpeg"]),
        UploadFormat(name: "PNG", extensions: ["png"], loaderStems: ["png"]),
        UploadFormat(name: "TIFF", extensions: ["tif", "tiff"], loaderStems: ["tiff"]),
        UploadFormat(name: "WebP", extensions: ["webp"], loaderStems: ["webp"]),
        UploadFormat(name: "GIF", extensions: ["gif"], loaderStems: ["gif", "nsgif"]),
        UploadFormat(name: "HEIF", extensions: ["heic", "heif", "avif"], loaderStems: ["heif"]),
    ]

    /// The format of a libvips loader ("jpegload", "VipsForeignLoadPngFile", ...), nil if not accepted.
    public init?(loader: String) {
        let name = loader.lowercased()
        let match = Self.accepted.first { format in
            format.loaderStems.contains { stem in
                name.hasPrefix(stem + "load") || name.hasPrefix("vipsforeignload" + stem)
            }
        }
        guard let match else { return nil }
        self = match
    }

    init(name: String, extensions: [String], loaderStems: [String]) {
        self.name = name
        self.extensions = extensions
        self.loaderStems = loaderStems
    }

    public static var acceptedNames: String { accepted.map(\.name).joined(separator: ", ") }
}
