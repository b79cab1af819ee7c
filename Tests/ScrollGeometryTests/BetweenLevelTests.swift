import Testing
@testable import ScrollGeometry

@Suite struct BetweenLevelTests {
    /// Two levels between each pair of Deep Zoom levels, at 5/8 and 4/5 of the finer one's size, rounded up on
    /// integers: the scales step by 1.25x, 1.28x and 1.25x.
    @Test func sizesAreTheFinerLevelsTimesFiveEighthsAndFourFifths() throws {
        let pyramid = Pyramid(width: 6000, height: 4000)
        let first = try #require(BetweenLevel(below: 12, step: 1, in: pyramid))
        let second = try #require(BetweenLevel(below: 12, step: 2, in: pyramid))
        #expect(first.size(in: pyramid) == PixelSize(width: 3750, height: 2500))
        #expect(second.size(in: pyramid) == PixelSize(width: 4800, height: 3200))
        let low = try #require(BetweenLevel(below: 7, step: 1, in: pyramid))
        #expect(pyramid.size(ofLevel: 8) == PixelSize(width: 188, height: 125))
        #expect(low.size(in: pyramid) == PixelSize(width: 118, height: 79))  // 117.5 and 78.125 rounded up
        #expect(abs(first.scale(in: pyramid) - 0.625) < 1e-12 && abs(second.scale(in: pyramid) - 0.8) < 1e-12)
        let scales = BetweenLevel.all(in: pyramid).map { $0.scale(in: pyramid) }
            + pyramid.levels.map { pyramid.scale(ofLevel: $0) }
        let sorted = scales.sorted()
        for (lower, upper) in zip(sorted, sorted.dropFirst()) {
            #expect(upper / lower >= 1.25 - 1e-12 && upper / lower <= 1.28 + 1e-12)
        }
    }

    @Test func onlyStepsOneAndTwoBelowTheDeepestLevelExist() {
        let pyramid = Pyramid(width: 2600, height: 1900)
        #expect(BetweenLevel(below: pyramid.maxLevel, step: 1, in: pyramid) == nil)
        #expect(BetweenLevel(below: -1, step: 1, in: pyramid) == nil)
        #expect(BetweenLevel(below: 3, step: 0, in: pyramid) == nil && BetweenLevel(below: 3, step: 3, in: pyramid) == nil)
        #expect(BetweenLevel.all(in: pyramid).count == 2 * pyramid.maxLevel)
        #expect(BetweenLevel.all(in: Pyramid(width: 1, height: 1)).isEmpty)
    }

    /// Tiles by Deep Zoom's rule on the level's own size: the grid covers it, and neighbours overlap by
    /// `overlap` on each side of their shared edge.
    @Test func tilesFollowDeepZoomsRule() throws {
        let pyramid = Pyramid(width: 2600, height: 1900)
        for level in BetweenLevel.all(in: pyramid) {
            let size = level.size(in: pyramid)
            let grid = level.tileGrid(in: pyramid)
            #expect((grid.columns - 1) * 254 < size.width && grid.columns * 254 >= size.width)
            #expect((grid.rows - 1) * 254 < size.height && grid.rows * 254 >= size.height)
            #expect(!level.contains(column: grid.columns, row: 0, in: pyramid) && !level.contains(column: 0, row: -1, in: pyramid))
            let last = level.tileRect(column: grid.columns - 1, row: grid.rows - 1, in: pyramid)
            #expect(last.x + last.width == size.width && last.y + last.height == size.height)
            if grid.columns > 1 {
                let left = level.tileRect(column: 0, row: 0, in: pyramid), right = level.tileRect(column: 1, row: 0, in: pyramid)
                #expect(left.x == 0 && left.width == 255 && right.x == 253)
            }
        }
    }
}
