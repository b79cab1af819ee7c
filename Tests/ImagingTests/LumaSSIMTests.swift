import Testing
@testable import Imaging

/// The server's SSIM is bench/formats/picture.py's: the reference values below were computed with it
/// (numpy, 2026-12-04) on the same patterns.
@Suite struct LumaSSIMTests {
    static let (width, height) = (23, 17)
    static let a: [UInt8] = (0..<(width * height * 3)).map { (i: Int) -> UInt8 in UInt8((i * 37 + (i / 7) * 11) % 256) }
    static let b: [UInt8] = a.indices.map { (i: Int) -> UInt8 in UInt8(clamping: Int(a[i]) + (i * 13) % 21 - 10) }
    static let grey: [UInt8] = (0..<(width * height)).map { (i: Int) -> UInt8 in UInt8((i * i * 7 + 3 * i) % 256) }

    @Test func agreesWithTheBenchmarksMeasure() {
        let near = LumaSSIM.score(Self.a, bands: 3, Self.b, bands: 3, width: Self.width, height: Self.height)
        #expect(abs(near - 0.9987082218080511) < 1e-12, "\(near)")
        // An RGB picture against a grey one: the grey band is its luma.
        let far = LumaSSIM.score(Self.a, bands: 3, Self.grey, bands: 1, width: Self.width, height: Self.height)
        #expect(abs(far - -0.025075024123115387) < 1e-12, "\(far)")
    }

    @Test func identicalPicturesScoreOneAndTheScoreIsSymmetric() {
        #expect(abs(LumaSSIM.score(Self.a, bands: 3, Self.a, bands: 3, width: Self.width, height: Self.height) - 1) < 1e-12)
        let ab = LumaSSIM.score(Self.a, bands: 3, Self.b, bands: 3, width: Self.width, height: Self.height)
        let ba = LumaSSIM.score(Self.b, bands: 3, Self.a, bands: 3, width: Self.width, height: Self.height)
        #expect(abs(ab - ba) < 1e-12)
    }

    @Test func moreNoiseScoresLower() {
        let noisier: [UInt8] = Self.a.indices.map { (i: Int) -> UInt8 in
            let shift: Int = 3 * ((i * 13) % 21 - 10)
            return UInt8(clamping: Int(Self.a[i]) + shift)
        }
        let near = LumaSSIM.score(Self.a, bands: 3, Self.b, bands: 3, width: Self.width, height: Self.height)
        let far = LumaSSIM.score(Self.a, bands: 3, noisier, bands: 3, width: Self.width, height: Self.height)
        #expect(far < near)
    }

    /// Edge tiles can be a pixel or two wide: the window shrinks to fit, down to single pixels.
    @Test func picturesSmallerThanTheWindowAreMeasured() {
        for (width, height) in [(1, 1), (2, 5), (8, 30), (9, 9)] {
            let x: [UInt8] = (0..<(width * height)).map { (i: Int) -> UInt8 in UInt8(i * 29 % 256) }
            let same = LumaSSIM.score(x, bands: 1, x, bands: 1, width: width, height: height)
            #expect(abs(same - 1) < 1e-12, "\(width)x\(height)")
            let other = LumaSSIM.score(x, bands: 1, x.map { $0 ^ 0x55 }, bands: 1, width: width, height: height)
            #expect(other.isFinite && other < 1, "\(width)x\(height)")
        }
    }

    /// Measured in bands of window rows (a preview's whole tables would take 64 MB): the score does not
    /// depend on where the bands fall.
    @Test func theScoreIsTheSameWhateverTheBands() {
        let (width, height) = (31, 150)
        let x: [UInt8] = (0..<(width * height * 3)).map { (i: Int) -> UInt8 in UInt8((i * 37 + (i / 11) * 5) % 256) }
        let y: [UInt8] = x.indices.map { (i: Int) -> UInt8 in UInt8(clamping: Int(x[i]) + (i * 7) % 17 - 8) }
        let whole = LumaSSIM.score(x, bands: 3, y, bands: 3, width: width, height: height, bandWindowRows: 1000)
        for rows in [1, 2, 7, 64, 141, 142] {
            let banded = LumaSSIM.score(x, bands: 3, y, bands: 3, width: width, height: height, bandWindowRows: rows)
            #expect(abs(banded - whole) < 1e-12, "\(rows): \(banded) against \(whole)")
        }
        #expect(whole < 1 && whole > 0.5)
    }
}
