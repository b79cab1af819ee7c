@testable import HTTPServer
import ScrollGeometry
@testable import Tilescope

/// Request targets: `{width}x{height}|{raw path}`, split and percent-decoded as the server does, then
/// parsed into an `Endpoint`. A Deep Zoom tile address is then checked against a pyramid of that size
/// the way the tile route does, and every address the pyramid says it contains must give a tile
/// rectangle inside its level: no arithmetic on a request number may trap.
enum EndpointTarget {
    static func run(_ bytes: [UInt8]) {
        let input = SizedInput(bytes)
        let request = Request(method: "GET", rawPath: input.text)
        guard let segments = request.pathSegments else { return }
        guard let endpoint = try? Endpoint.parse(segments) else { return }
        FuzzCheck.require(!endpoint.allowedMethods.isEmpty, "\(endpoint) allows no method")
        guard case let .deepZoomTile(_, level, column, row) = endpoint else { return }
        for tileSize in [1, 254, 512] {
            check(Pyramid(width: input.width, height: input.height, tileSize: tileSize, overlap: 1),
                  level: level, column: column, row: row)
        }
    }

    private static func check(_ pyramid: Pyramid, level: Int, column: Int, row: Int) {
        guard pyramid.contains(level: level) else { return }
        let size = pyramid.size(ofLevel: level)
        FuzzCheck.require(size.width >= 1 && size.height >= 1, "level \(level) of \(pyramid) is \(size)")
        FuzzCheck.require(size.width <= pyramid.width && size.height <= pyramid.height, "level \(level) is larger than the image")
        let grid = pyramid.tileGrid(ofLevel: level)
        guard pyramid.contains(level: level, column: column, row: row) else {
            FuzzCheck.require(column >= grid.columns || row >= grid.rows, "\(column)_\(row) refused inside \(grid)")
            return
        }
        let rect = pyramid.tileRect(level: level, column: column, row: row)
        FuzzCheck.require(rect.x >= 0 && rect.y >= 0 && rect.width > 0 && rect.height > 0
                          && rect.x + rect.width <= size.width && rect.y + rect.height <= size.height,
                          "tile \(level)/\(column)_\(row) of \(pyramid) is \(rect), outside its \(size) level")
        _ = pyramid.scale(ofLevel: level)
    }
}
