import SeededRandom
import Testing
import ScrollGeometry
@testable import Tilescope

/// A viewport's drawn tiles are its whole cover, so the grid writer takes their block from the cover: the
/// same blocks as a pass over the tiles gives, with prefetched tiles or without.
@Suite struct TileBlockTests {
    @Test func theCoverGivesTheBlocksItsTilesGive() throws {
        var compared = 0
        for seed in 0..<400 {
            var rng = SeededGenerator(seed: UInt64(seed) + 9_000)
            let pyramid = Pyramid(width: Int.random(in: 1...60000, using: &rng), height: Int.random(in: 1...60000, using: &rng))
            let query = try ViewportQuery.parse(query: [
                "width": String(Double.random(in: 1...2000, using: &rng)),
                "height": String(Double.random(in: 1...2000, using: &rng)),
                "scale": String(Double.random(in: 1...3, using: &rng)),
                "zoomScale": String(Double.random(in: 0.0001...2, using: &rng)),
                "offsetX": String(Double.random(in: -1000...60000, using: &rng)),
                "offsetY": String(Double.random(in: -1000...60000, using: &rng)),
                "prefetch": seed % 2 == 0 ? "1" : "0",
            ])
            let viewport = query.viewport(for: pyramid)
            let prefetched = viewport.prefetch?.map(\.address)
            let fromTiles = TileBlock.blocks(drawn: viewport.tileAddresses, prefetched: prefetched)
            #expect(TileBlock.blocks(cover: viewport.cover, prefetched: prefetched) == fromTiles, "seed \(seed)")
            if !viewport.tileAddresses.isEmpty { compared += 1 }
        }
        #expect(compared > 200)
    }
}
