/// What a source image's header says, read without decoding any pixels.
public struct ImageHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bands: Int

    public init(width: Int, height: Int, bands: Int) {
        self.width = width
        self.height = height
        self.bands = bands
    }

    public var pixels: Int { width * height }

    /// Reads the header only: a few milliseconds even for a gigapixel file.
    public static func read(_ path: String) throws -> ImageHeader {
        try Vips.start()
        let image = try VImage.open(path)
        return ImageHeader(width: image.width, height: image.height, bands: image.bands)
    }
}
