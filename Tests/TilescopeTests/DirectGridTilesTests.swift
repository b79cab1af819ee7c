import ScrollGeometry
import Testing
@testable import Tilescope

/// Which IIIF answers of a direct source are tiles of its own grid, held in memory once made: exactly the tiles a
/// client paging by `info.json`'s `tiles` asks for (every scale factor, the short tiles at the ends included), and
/// nothing else (`DirectGridTiles`).
@Suite struct DirectGridTilesTests {
    static let width = 10000, height = 7500
    let grid = DirectGridTiles(versionFolder: "/data/pyramids/x/v1", tileSize: PixelSize(width: 256, height: 256),
                               imageSize: PixelSize(width: width, height: height))

    func rendering(_ region: String, _ size: String, rotation: String = "0", _ format: String = "default.jpg") throws -> IIIFRendering {
        try IIIFImageRequest.parse(region: region, size: size, rotation: rotation, qualityAndFormat: format)
            .resolve(width: Self.width, height: Self.height, maxArea: 100_000_000)
    }

    /// Every tile OpenSeadragon's IIIF tile source asks for, at every scale factor of `info.json`, is held.
    @Test func everyTileOfEveryScaleIsAGridTile() throws {
        var tiles = 0
        for power in 0...6 {
            let scale = 1 << power, side = 256 * scale
            for y in stride(from: 0, to: Self.height, by: side) {
                for x in stride(from: 0, to: Self.width, by: side) {
                    let width = min(side, Self.width - x), height = min(side, Self.height - y)
                    let size = "\((width + scale - 1) / scale),\((height + scale - 1) / scale)"
                    let tile = try rendering("\(x),\(y),\(width),\(height)", size)
                    #expect(grid.key(for: tile) == "/data/pyramids/x/v1/iiif-grid/" + tile.canonical, "\(tile.canonical)")
                    tiles += 1
                }
            }
        }
        #expect(tiles > 1500)
        // The whole image at the coarsest scale factors (the region is the image at each of them).
        #expect(grid.key(for: try rendering("full", "157,")) != nil)
        #expect(grid.key(for: try rendering("full", "79,")) != nil)
        // Each format and quality is a tile of its own.
        #expect(grid.key(for: try rendering("0,0,256,256", "256,", "gray.png")) != nil)
    }

    @Test func otherRegionsAreNotGridTiles() throws {
        for (region, size, rotation) in [
            ("0,0,256,256", "128,", "0"),        // a tile at a size of no scale factor
            ("1,0,256,256", "256,", "0"),        // off the grid
            ("0,0,512,512", "512,", "0"),        // two by two tiles at full size
            ("0,0,300,256", "300,", "0"),        // not a tile's width
            ("9984,0,16,256", "8,", "0"),        // the short end tile at the wrong scale
            ("0,0,256,256", "256,", "!0"),       // mirrored
            ("0,0,256,256", "256,", "90"),       // turned
            ("full", "1000,", "0"),              // the whole image at a size of no scale factor
        ] {
            #expect(grid.key(for: try rendering(region, size, rotation: rotation)) == nil, "\(region)/\(size)/\(rotation)")
        }
    }
}
