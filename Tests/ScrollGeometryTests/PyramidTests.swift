import Testing
@testable import ScrollGeometry

@Suite struct PyramidTests {
    @Test func maxLevelIsCeilLog2OfTheLongSide() {
        #expect(Pyramid(width: 1, height: 1).maxLevel == 0)
        #expect(Pyramid(width: 2, height: 1).maxLevel == 1)
        #expect(Pyramid(width: 3, height: 2).maxLevel == 2)
        #expect(Pyramid(width: 1024, height: 768).maxLevel == 10)
        #expect(Pyramid(width: 1025, height: 768).maxLevel == 11)
        #expect(Pyramid(width: 100, height: 32768).maxLevel == 15)
    }

    @Test func levelSizesRoundUpAsOpenSeadragonDoes() {
        let pyramid = Pyramid(width: 6000, height: 4000)
        #expect(pyramid.maxLevel == 13)
        #expect(pyramid.size(ofLevel: 13) == PixelSize(width: 6000, height: 4000))
        #expect(pyramid.size(ofLevel: 12) == PixelSize(width: 3000, height: 2000))
        #expect(pyramid.size(ofLevel: 9) == PixelSize(width: 375, height: 250))
        #expect(pyramid.size(ofLevel: 8) == PixelSize(width: 188, height: 125))
        #expect(pyramid.size(ofLevel: 7) == PixelSize(width: 94, height: 63))
        #expect(pyramid.size(ofLevel: 0) == PixelSize(width: 1, height: 1))
        for level in pyramid.levels {
            let s = pyramid.scale(ofLevel: level)
            let size = pyramid.size(ofLevel: level)
            #expect(size.width == Int((Double(6000) * s).rounded(.up)))
            #expect(size.height == Int((Double(4000) * s).rounded(.up)))
        }
    }

    @Test func tileGridAndOverlap() {
        let pyramid = Pyramid(width: 600, height: 300, tileSize: 254, overlap: 1)
        #expect(pyramid.tileGrid(ofLevel: 10).columns == 3)
        #expect(pyramid.tileGrid(ofLevel: 10).rows == 2)
        #expect(pyramid.tileRect(level: 10, column: 0, row: 0) == PixelRect(x: 0, y: 0, width: 255, height: 255))
        #expect(pyramid.tileRect(level: 10, column: 1, row: 1) == PixelRect(x: 253, y: 253, width: 256, height: 47))
        #expect(pyramid.tileRect(level: 10, column: 2, row: 0) == PixelRect(x: 507, y: 0, width: 93, height: 255))
        #expect(!pyramid.contains(level: 10, column: 3, row: 0))
        #expect(!pyramid.contains(level: 11, column: 0, row: 0))
        #expect(!pyramid.contains(level: 10, column: -1, row: 0))
    }

    /// `tileSpan` along a level's width and height is `tileRect`'s x and width, y and height, for every tile of
    /// every level of pyramids with and without overlap.
    @Test func tileSpansAreTileRectsAlongOneAxis() {
        for pyramid in [Pyramid(width: 600, height: 300), Pyramid(width: 1001, height: 7777, tileSize: 256, overlap: 0),
                        Pyramid(width: 5000, height: 4097, tileSize: 510, overlap: 2)] {
            for level in pyramid.levels {
                let size = pyramid.size(ofLevel: level), grid = pyramid.tileGrid(ofLevel: level)
                for column in 0..<grid.columns {
                    for row in 0..<grid.rows {
                        let rect = pyramid.tileRect(level: level, column: column, row: row)
                        let across = pyramid.tileSpan(index: column, extent: size.width)
                        let down = pyramid.tileSpan(index: row, extent: size.height)
                        #expect(across == (rect.x, rect.width) && down == (rect.y, rect.height), "\(level)/\(column)_\(row)")
                    }
                }
            }
        }
    }

    @Test func previewLevelIsTheLargestThatFitsIn1024() {
        #expect(Pyramid(width: 800, height: 600).previewLevel() == 10)
        #expect(Pyramid(width: 1024, height: 1024).previewLevel() == 10)
        #expect(Pyramid(width: 1025, height: 10).previewLevel() == 10)
        let wide = Pyramid(width: 6144, height: 2048)
        #expect(wide.size(ofLevel: wide.previewLevel()) == PixelSize(width: 768, height: 256))
        let giga = Pyramid(width: 32768, height: 32768)
        #expect(giga.size(ofLevel: giga.previewLevel()) == PixelSize(width: 1024, height: 1024))
    }
}
