import Foundation
import ScrollGeometry

/// `pyramid.json`: what a published pyramid folder holds. It is written last, inside the
/// staging folder, so a folder under `pyramids/` is complete by construction.
public struct PyramidManifest: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var tileSize: Int
    public var overlap: Int
    public var format: String
    public var source: String
    public var version: String

    public var pyramid: Pyramid {
        Pyramid(width: width, height: height, tileSize: tileSize, overlap: overlap)
    }

    public init(pyramid: Pyramid, source: String, version: String) {
        width = pyramid.width
        height = pyramid.height
        tileSize = pyramid.tileSize
        overlap = pyramid.overlap
        format = "jpeg"
        self.source = source
        self.version = version
    }
}
