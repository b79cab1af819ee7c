import ScrollGeometry

/// The Deep Zoom descriptor's XML (`/dzi/{id}.dzi`): the one dzsave stored, given a `Url` naming the versioned
/// tiles folder (`VersionedTiles`), or written here for the derived tile formats (`?format=`).
enum DeepZoomDescriptor {
    /// The descriptor of the same pyramid in this format: dzsave's, with `Format` changed.
    /// `tilesURL`, when given, is the `Url` attribute: the versioned tiles folder (`VersionedTiles`).
    static func xml(_ pyramid: Pyramid, format: DeepZoomTileFormat, tilesURL: String? = nil) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image \(tilesURL.map { "Url=\"\($0)\" " } ?? "")xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="\(format.rawValue)" \
        Overlap="\(pyramid.overlap)" TileSize="\(pyramid.tileSize)"><Size Height="\(pyramid.height)" \
        Width="\(pyramid.width)"/></Image>

        """
    }

    /// The stored descriptor `stored` with `Url` set to `tilesURL` on its `Image` element; nil if it has none.
    static func naming(_ tilesURL: String, in stored: String) -> String? {
        var xml = stored
        guard let image = xml.range(of: "<Image ") else { return nil }
        xml.replaceSubrange(image, with: "<Image Url=\"\(tilesURL)\" ")
        return xml
    }
}
