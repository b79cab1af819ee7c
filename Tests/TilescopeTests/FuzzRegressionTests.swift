import Testing
@testable import Tilescope

/// Inputs that crashed a fuzz target (Tests/fuzz), kept as plain tests: each was a trap that would
/// have killed the server, and must now be an error the client gets as a 400.
@Suite struct FuzzRegressionTests {
    /// The iiif target's seed `200000x200000|full/^pct:999999999/0/default.jpg`: 2e12 x 2e12 pixels,
    /// whose area overflowed Int in `IIIFSize.resolve`.
    @Test func hugePercentOfAHugeImageIsRefused() throws {
        let request = try IIIFImageRequest.parse(region: "full", size: "^pct:999999999", rotation: "0",
                                                 qualityAndFormat: "default.jpg")
        let error = try #require(throws: APIError.self) {
            try request.resolve(width: 200_000, height: 200_000, maxArea: 4096 * 4096)
        }
        #expect(error.status == 400)
        #expect(error.message.contains("maxArea"), "\(error.message)")
    }

    /// `^999999999,` of a 1 x 1 region: the height follows the width, and the area overflowed.
    @Test func hugeWidthOfAOnePixelRegionIsRefused() throws {
        let request = try IIIFImageRequest.parse(region: "0,0,1,1", size: "^999999999,999999999", rotation: "0",
                                                 qualityAndFormat: "default.jpg")
        let error = try #require(throws: APIError.self) {
            try request.resolve(width: 1, height: 1, maxArea: 4096 * 4096)
        }
        #expect(error.status == 400)
    }
}
