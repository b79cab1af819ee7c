import Catalog
import Foundation
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

    /// The captions-plist target's `crash-binary-plist-set`: a binary property list with a set in it.
    /// `PropertyListSerialization` on Linux died on it with a segmentation fault (a reload of a
    /// `captions.plist` like this would have killed the server); now it is a malformed sidecar.
    @Test func binaryPropertyListWithASetIsMalformed() throws {
        let error = try #require(throws: CaptionsError.self) {
            try Captions.parsePropertyList(Data(Self.binaryPropertyListWithASet), file: "captions.plist")
        }
        #expect(error.description.contains("not a valid property list"), "\(error)")
    }

    static let binaryPropertyListWithASet: [UInt8] = [
        0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xc2, 0x01, 0x02, 0x03, 0x08, 0x55, 0x62, 0x2e,
        0x70, 0x6e, 0x67, 0x59, 0x74, 0x69, 0x67, 0x65, 0x72, 0x2e, 0x6a, 0x70, 0x67, 0xd2, 0x04, 0x05,
        0xc5, 0x07, 0x57, 0x63, 0x61, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x55, 0x74, 0x69, 0x74, 0x00, 0x00,
        0x00, 0x67, 0x65, 0x65, 0x51, 0x42, 0x57, 0x41, 0x20, 0x74, 0x69, 0x67, 0x65, 0x72, 0x08, 0x0d,
        0x13, 0x1d, 0x22, 0x2a, 0x35, 0x35, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3e,
    ]

    /// The captions-plist target's `timeout-binary-plist-cycle`: a binary property list whose entry
    /// "tiger.jpg" refers back to the top-level dictionary. A full decode recursed without end (the
    /// fuzzer's 10-second timeout). Read to the depth captions have, the cycle is cut there: the entry
    /// is a dictionary without "title" or "caption".
    @Test func binaryPropertyListThatContainsItselfIsReadOnce() throws {
        let captions = try Captions.parsePropertyList(Data(Self.binaryPropertyListThatContainsItself), file: "captions.plist")
        #expect(captions.entries.count == 2)
        #expect(captions.entries["tiger.jpg"] == Caption(title: nil, caption: nil))
    }

    static let binaryPropertyListThatContainsItself: [UInt8] = [
        0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xd2, 0x01, 0x02, 0x03, 0x00, 0x67, 0x62, 0x2e,
        0x70, 0x6e, 0x67, 0x59, 0x74, 0x69, 0x67, 0x65, 0x72, 0x2e, 0x6a, 0x70, 0x67, 0xd2, 0x04, 0x05,
        0x06, 0x07, 0x57, 0x63, 0x61, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x55, 0x74, 0x69, 0x74, 0x6c, 0x65,
        0x53, 0x62, 0x65, 0x65, 0x51, 0x42, 0x57, 0x41, 0x20, 0x74, 0x69, 0x67, 0x65, 0x72, 0x08, 0x0d,
        0x13, 0x1d, 0x22, 0x2a, 0x30, 0x34, 0x36, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3e,
    ]
}
