import SeededRandom
import Testing
@testable import ScrollGeometry

/// The nearest-first order must stay exactly the published one (distance to the grid cell's centre, then row,
/// then column) whatever way it is computed: the browser client computes the same list with a comparison
/// sort, and a JS/Swift equality test holds both to it. `referenceOrder` is that rule written out plainly.
@Suite struct TileOrderTests {
    /// Rule 9's order as a plain comparison sort, with the distance computed as the published rule says.
    static func referenceOrder(_ addresses: [TileAddress], pyramid: Pyramid, level: Int, centre: Point) -> [TileAddress] {
        let scale = pyramid.scale(ofLevel: level)
        let size = pyramid.size(ofLevel: level)
        let t = pyramid.tileSize
        let px = centre.x * scale, py = centre.y * scale
        func distance(_ a: TileAddress) -> Double {
            let dx = Double(a.column * t + min((a.column + 1) * t, size.width)) / 2 - px
            let dy = Double(a.row * t + min((a.row + 1) * t, size.height)) / 2 - py
            return dx * dx + dy * dy
        }
        return addresses.map { (distance($0), $0) }.sorted { a, b in
            if a.0 != b.0 { return a.0 < b.0 }
            if a.1.row != b.1.row { return a.1.row < b.1.row }
            return a.1.column < b.1.column
        }.map(\.1)
    }

    static func rowMajor(_ cover: TileCover) -> [TileAddress] {
        cover.rows.flatMap { row in cover.columns.map { TileAddress(level: cover.level, column: $0, row: row) } }
    }

    @Test func coverOrderIsTheReferenceOrderOnRandomScenes() {
        var checked = 0
        for scene in RandomScene.all(3000, base: 0x7115_0000) {
            let state = ScrollState(imageSize: scene.imageSize, scrollView: scene.scrollView)
            let choice = LevelChoice(pyramid: scene.pyramid, zoomScale: state.zoomScale, scale: scene.scrollView.scale)
            // The level the answer draws, and for `low` the one prefetch uses: both orders go out.
            let level = choice.resolution.level ?? min(choice.previewLevel + 1, scene.pyramid.maxLevel)
            let cover = TileCover(pyramid: scene.pyramid, level: level, imageRect: state.visibleRect)
            let centre = state.viewportCentre
            let expected = Self.referenceOrder(Self.rowMajor(cover), pyramid: scene.pyramid, level: level, centre: centre)
            let actual = cover.addresses(nearestTo: centre, in: scene.pyramid)
            let same = actual == expected  // a Bool, so a failure names the scene without two long lists
            #expect(same, "\(scene)")
            checked += actual.count
        }
        #expect(checked > 10_000)  // the scenes reach past one-tile covers
    }

    @Test func prefetchRingOrderIsTheReferenceOrderOnRandomScenes() {
        for scene in RandomScene.all(1500, base: 0x7115_1000) {
            let state = ScrollState(imageSize: scene.imageSize, scrollView: scene.scrollView)
            let choice = LevelChoice(pyramid: scene.pyramid, zoomScale: state.zoomScale, scale: scene.scrollView.scale)
            guard let level = choice.resolution.level else { continue }
            let cover = TileCover(pyramid: scene.pyramid, level: level, imageRect: state.visibleRect)
            let ring = Prefetch.ring(around: cover, pyramid: scene.pyramid, centre: state.viewportCentre)
            let expected = Self.referenceOrder(ring, pyramid: scene.pyramid, level: level, centre: state.viewportCentre)
            let same = ring == expected
            #expect(same, "\(scene)")
        }
    }

    /// Ties are the hard part: a centre on a grid line or a cell's centre makes many distances equal, and
    /// integer centres make exact ties between cells that are not mirror images (3-4-5 triangles).
    @Test func tiesFollowRowThenColumnWhereverTheCentreSits() {
        let pyramid = Pyramid(width: 5000, height: 3000, tileSize: 100, overlap: 1)  // maxLevel 13
        let level = pyramid.maxLevel
        let cover = TileCover(pyramid: pyramid, level: level, imageRect: Rect(x: 0, y: 0, width: 2600, height: 2100))
        var centres: [Point] = []
        for x in stride(from: 0.0, through: 2600, by: 50) {
            for y in stride(from: 0.0, through: 2100, by: 50) { centres.append(Point(x: x, y: y)) }
        }
        centres += [Point(x: 1300.5, y: 1049.5), Point(x: 1e-300, y: 5e-324), Point(x: 2600, y: 2100)]
        for centre in centres {
            let expected = Self.referenceOrder(Self.rowMajor(cover), pyramid: pyramid, level: level, centre: centre)
            let same = cover.addresses(nearestTo: centre, in: pyramid) == expected
            #expect(same, "centre \(centre)")
        }
    }

    /// The short last column and row (the level's edge) move their cell centres off the regular grid.
    @Test func shortEdgeCellsAndCentresOutsideTheCover() {
        let pyramid = Pyramid(width: 1037, height: 513, tileSize: 254, overlap: 1)
        let level = pyramid.maxLevel
        let cover = TileCover(pyramid: pyramid, level: level, imageRect: Rect(x: 0, y: 0, width: 1037, height: 513))
        for centre in [Point(x: 1036, y: 512), Point(x: 1016 + 10.5, y: 508 + 2.5), Point(x: -5000, y: 40),
                       Point(x: 1e9, y: -1e9), Point(x: 518.5, y: 256.5)] {
            let expected = Self.referenceOrder(Self.rowMajor(cover), pyramid: pyramid, level: level, centre: centre)
            let same = cover.addresses(nearestTo: centre, in: pyramid) == expected
            #expect(same, "centre \(centre)")
        }
    }

    /// `TileOrder.sorted` takes its input in any order and still returns the one total order.
    @Test func inputOrderDoesNotMatter() {
        var random = SeededGenerator(seed: 13)
        let pyramid = Pyramid(width: 20000, height: 9000)
        let level = pyramid.maxLevel - 1
        let cover = TileCover(pyramid: pyramid, level: level, imageRect: Rect(x: 3000, y: 1000, width: 5120, height: 3200))
        for _ in 0..<50 {
            let centre = Point(x: Double.random(in: 3000...8120, using: &random).rounded(),
                               y: Double.random(in: 1000...4200, using: &random).rounded())
            let expected = Self.referenceOrder(Self.rowMajor(cover), pyramid: pyramid, level: level, centre: centre)
            let shuffled = Self.rowMajor(cover).shuffled(using: &random)
            let same = TileOrder(pyramid: pyramid, level: level, centre: centre).sorted(shuffled) == expected
            #expect(same, "centre \(centre)")
        }
    }

    /// Distances crowded into one bucket by a far outlier, in reverse order: the insertion pass gives up after
    /// its budget of moves and the comparison sort finishes; equal distances fall back to the row and column.
    @Test func crowdedBucketsAndEqualDistancesStillSort() {
        typealias Keyed = TileOrder.Keyed
        let crowded = (0..<2000).reversed().map { Keyed(distance: 1 + Double($0) * 1e-9, order: $0 << 32) }
            + [Keyed(distance: 1e12, order: 7)]
        let equal = (0..<300).map { Keyed(distance: 42, order: (300 - $0) << 32 | $0) }
        let mixed = (0..<500).map { Keyed(distance: Double($0 % 7), order: 499 - $0) }
        for keyed in [crowded, equal, mixed, [], [Keyed(distance: 1, order: 1)]] {
            let expected = keyed.sorted(by: Keyed.precedes)
            let same = TileOrder.ordered(keyed).map(\.order) == expected.map(\.order)
            #expect(same, "\(keyed.count) tiles")
        }
    }
}
