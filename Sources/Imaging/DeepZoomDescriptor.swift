import ScrollGeometry

/// The `.dzi` XML of a pyramid, byte for byte as libvips dzsave writes it: the base of a
/// progressive build is made from the preview, so dzsave's own descriptor names the wrong size.
public enum DeepZoomDescriptor {
    public static func xml(of pyramid: Pyramid, format: String = "jpeg") -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Image xmlns="http://schemas.microsoft.com/deepzoom/2008"
          Format="\(format)"
          Overlap="\(pyramid.overlap)"
          TileSize="\(pyramid.tileSize)"
          >
          <Size \("")
            Height="\(pyramid.height)"
            Width="\(pyramid.width)"
          />
        </Image>

        """
    }
}
