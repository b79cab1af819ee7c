/// A width and a height in points or in image pixels, as the caller says.
public struct Size: Hashable, Sendable, Codable {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public init(_ pixels: PixelSize) {
        self.init(width: Double(pixels.width), height: Double(pixels.height))
    }

    public static let zero = Size(width: 0, height: 0)

    public func scaled(by factor: Double) -> Size {
        Size(width: width * factor, height: height * factor)
    }
}
