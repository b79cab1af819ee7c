import Foundation
import Imaging
import Testing
import TestSupport

/// `tilescope build` starts libvips without its format modules and loads them only when a source may need one
/// (`Vips.start(toRead:)`): a photo's build does not pay for HEIF, PDF, slides and ImageMagick, and a source that
/// needs a module still gets it, read as libvips reads it. Seen from outside, through the dynamic loader's own
/// account of what the process loads (`LD_DEBUG=files`).
@Suite struct BuildFormatModulesTests {
    @Test func aJPEGIsBuiltWithoutTheModulesAndAnAVIFAfterItLoadsThem() throws {
        guard EncodedFormat.avif.isAvailable else { return }  // libvips without libheif reads no AVIF either
        try Vips.start()
        let root = try TestScratch.folder("build-format-modules")
        try TestImages.writeJPEG(width: 900, height: 600, to: root + "/photo.jpg", seed: 3)
        let avif = try VImage.fromPixels(TestImages.pixels(width: 700, height: 500, seed: 5), width: 700, height: 500, bands: 3)
        try Data(avif.avifData(quality: 90, effort: 2)).write(to: URL(fileURLWithPath: root + "/picture.avif"))

        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") }
        environment["LD_DEBUG"] = "files"
        let photoOnly = try Command.run(ServerProcess.executable, ["build", "--data", root + "/data-photo", root + "/photo.jpg"],
                                        environment: environment)
        #expect(photoOnly.status == 0, "\(photoOnly.output.suffix(2000))")
        #expect(photoOnly.output.contains("photo: phases:"), "\(photoOnly.output.suffix(2000))")
        #expect(!photoOnly.output.contains("vips-modules"), "a JPEG's build loaded libvips's modules")

        // The JPEG first, then the AVIF: the modules come between the two builds, for the second one.
        let both = try Command.run(ServerProcess.executable, ["build", "--data", root + "/data", root + "/photo.jpg", root + "/picture.avif"],
                                   environment: environment)
        #expect(both.status == 0, "\(both.output.suffix(2000))")
        let output = both.output
        let photoDone = try #require(output.range(of: "photo: phases:"), "\(output.suffix(2000))")
        let heif = try #require(output.range(of: "vips-modules-[0-9.]+/vips-heif", options: .regularExpression),
                                "the AVIF's build loaded no HEIF module")
        let pictureDone = try #require(output.range(of: "picture: phases:"), "\(output.suffix(2000))")
        #expect(photoDone.lowerBound < heif.lowerBound && heif.lowerBound < pictureDone.lowerBound)

        // The AVIF's full-size level is libvips's own reading of it (this process loaded every module at start).
        let level = try FileManager.default.contentsOfDirectory(atPath: root + "/data/pyramids/picture")
        let tiles = root + "/data/pyramids/picture/\(try #require(level.first))/image_files/10"
        let tile = try VImage.open(tiles + "/0_0.jpeg")
        let expected = try VImage.open(root + "/picture.avif").crop(x: 0, y: 0, width: tile.width, height: tile.height)
        #expect(TestImages.psnr(try tile.pixels(), try expected.pixels()) >= 30)
    }
}
