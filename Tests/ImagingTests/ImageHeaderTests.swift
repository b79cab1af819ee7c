import Foundation
import TestSupport
import Testing
@testable import Imaging

/// A source's header is read from the file as it is now: the folder scan reads it again after a source
/// was rewritten in place, and libvips's operation cache answers a random-access load of a file name it
/// has loaded before with the old file's image.
@Suite struct ImageHeaderTests {
    @Test(arguments: ["png", "jpg"])
    func aSourceRewrittenInPlaceIsReadAfresh(_ format: String) throws {
        let folder = try TestImages.folder("image-header-rewritten-\(format)")
        let path = folder + "/source.\(format)"
        for (width, height) in [(100, 80), (120, 90), (64, 200)] {
            if format == "png" {
                try TestImages.writePNG(width: width, height: height, to: path)
            } else {
                try TestImages.writeJPEG(width: width, height: height, to: path)
            }
            #expect(try ImageHeader.read(path) == ImageHeader(width: width, height: height, bands: 3))
            #expect(try ImageHeader.read(path, strict: true) == ImageHeader(width: width, height: height, bands: 3))
        }
    }
}
