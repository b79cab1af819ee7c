/// The image formats accepted for upload, recognised by the libvips loader that sniffs the file.
///
/// A closed list rather than "whatever libvips reads": uploads come from the network, and loaders
/// such as SVG, PDF or ImageMagick's parse far more than pixels.
public struct UploadFormat: Sendable, Equatable {
    public var name: String
    /// File name extensions, the usual one first.
    public var extensions: [String]

    public static let accepted: [UploadFormat] = [
        UploadFormat(name: "JPEG", extensions: ["jpg", "jpeg", "jpe"]),
        UploadFormat(name: "PNG", extensions: ["png"]),
        UploadFormat(name: "TIFF", extensions: ["tif", "tiff"]),
        UploadFormat(name: "WebP", extensions: ["webp"]),
        UploadFormat(name: "GIF", extensions: ["gif"]),
        UploadFormat(name: "HEIF", extensions: ["heic", "heif", "avif"]),
    ]

    /// The format of a libvips loader ("jpegload", "VipsForeignLoadPngFile", ...), nil if not accepted.
    public init?(loader: String) {
        let name = loader.lowercased()
        let match = Self.accepted.first { format in
            let key = format.name.lowercased()
            return name.hasPrefix(key + "load") || name.hasPrefix("vipsforeignload" + key)
        }
        guard let match else { return nil }
        self = match
    }

    init(name: String, extensions: [String]) {
        self.name = name
        self.extensions = extensions
    }

    public static var acceptedNames: String { accepted.map(\.name).joined(separator: ", ") }
}
