import Foundation
import CVips
import Imaging
import ScrollGeometry
import TestSupport

/// Sources whose AVIF and WebP tiles are clearly smaller than their JPEG tiles even once those are
/// re-encoded with optimized Huffman tables (`OptimizedJPEG`): `TestImages.pixels` drawn at a tenth of the
/// size and enlarged, so no sharp edge and no grain, like a photograph's sky. The tests that follow a tile
/// through its AVIF or WebP file need a source where the made tile wins; on `TestImages.pixels` itself, whose
/// 16-pixel checkerboard JPEG codes well once its tables are its own, the re-encoded JPEG often does.
enum SmoothImages {
    static func image(width: Int, height: Int, seed: Int) throws -> VImage {
        let (small, smallHeight) = (max(2, width / 10), max(2, height / 10))
        return try VImage.fromPixels(TestImages.pixels(width: small, height: smallHeight, seed: seed),
                                     width: small, height: smallHeight, bands: 3)
            .resized(to: PixelSize(width: width, height: height), kernel: VIPS_KERNEL_LINEAR)
    }

    static func writeJPEG(width: Int, height: Int, to path: String, seed: Int) throws {
        try image(width: width, height: height, seed: seed).saveJPEG(to: path, quality: 90)
    }

    static func writePNG(width: Int, height: Int, to path: String, seed: Int) throws {
        try Data(try image(width: width, height: height, seed: seed).pngData()).write(to: URL(fileURLWithPath: path))
    }
}
