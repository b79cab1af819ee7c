import Testing
@testable import ScrollGeometry

/// Rules 6-8: density, preview level, the swap at `threshold`, the tile level.
@Suite struct LevelChoiceTests {
    let pyramid = Pyramid(width: 4096, height: 2048)  // maxLevel 12; preview level 10 (1024 x 512), s(P) = 1/4

    @Test func thresholdIsThePreviewScaleOverTheScreenScale() {
        for scale in [1.0, 1.5, 2, 3, 4] {
            let choice = LevelChoice(pyramid: pyramid, zoomScale: 0.1, scale: scale)
            #expect(choice.previewLevel == 10)
            #expect(choice.threshold == 0.25 / scale)
        }
    }

    @Test func swapHappensExactlyAtTheThreshold() {
        #expect(LevelChoice(pyramid: pyramid, zoomScale: 0.25, scale: 1).resolution == .low)
        #expect(LevelChoice(pyramid: pyramid, zoomScale: 0.25 / 3, scale: 3).resolution == .low)
        #expect(LevelChoice(pyramid: pyramid, zoomScale: 0.2500001, scale: 1).resolution == .high(level: 11))
        #expect(LevelChoice(pyramid: pyramid, zoomScale: 0.25 / 3 * 1.000001, scale: 3).resolution == .high(level: 11))
        // Within the 1e-9 epsilon still counts as "enough".
        #expect(LevelChoice(pyramid: pyramid, zoomScale: 0.25 + 5e-10, scale: 1).resolution == .low)
    }

    @Test func levelIsTheSmallestAtLeastAsSharpAsTheScreen() {
        func level(_ zoomScale: Double, _ scale: Double) -> Int? {
            LevelChoice(pyramid: pyramid, zoomScale: zoomScale, scale: scale).resolution.level
        }
        #expect(level(0.3, 1) == 11)   // d 0.3 -> s 0.5
        #expect(level(0.5, 1) == 11)   // exact power of two stays on its level
        #expect(level(0.5000001, 1) == 12)
        #expect(level(0.25, 2) == 11)  // d 0.5
        #expect(level(1, 1) == 12)
        #expect(level(2, 4) == 12)     // d 8: clamped to maxLevel
        #expect(level(1e300, 4) == 12)
        // 0.1 x 3 is 0.30000000000000004 in floating point: still level 11.
        #expect(level(0.1, 3) == 11)
        // 1/3 x 3 rounds to exactly 1: level 12 (maxLevel), not beyond.
        #expect(level(1.0 / 3, 3) == 12)
    }

    @Test func levelFromDensityHandlesPowersOfTwoAndExtremes() {
        let big = Pyramid(width: 65536, height: 100)  // maxLevel 16
        #expect(LevelChoice.level(forDensity: 1, in: big) == 16)
        #expect(LevelChoice.level(forDensity: 0.5, in: big) == 15)
        #expect(LevelChoice.level(forDensity: 0.5 * (1 + 1e-12), in: big) == 15)
        #expect(LevelChoice.level(forDensity: 0.5 * (1 + 1e-6), in: big) == 16)
        #expect(LevelChoice.level(forDensity: 1.0 / 65536, in: big) == 0)
        #expect(LevelChoice.level(forDensity: 1e-300, in: big) == 0)
        #expect(LevelChoice.level(forDensity: 0, in: big) == 0)
        #expect(LevelChoice.level(forDensity: .infinity, in: big) == 16)
        #expect(LevelChoice.level(forDensity: .nan, in: big) == 0)
    }

    @Test func smallImageIsItsOwnPreview() {
        let small = Pyramid(width: 800, height: 600)  // maxLevel 10 = preview level
        let low = LevelChoice(pyramid: small, zoomScale: 1, scale: 1)
        #expect(low.previewLevel == 10)
        #expect(low.threshold == 1)
        #expect(low.resolution == .low)
        #expect(LevelChoice(pyramid: small, zoomScale: 1.5, scale: 1).resolution == .high(level: 10))
    }
}
