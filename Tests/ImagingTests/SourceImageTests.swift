import Foundation
import TestSupport
import Testing
@testable import Imaging

/// The one reading of a source (`SourceImage`): upright, through its profile to sRGB, against what the
/// `vips` command itself makes of the same file.
@Suite struct SourceImageTests {
    /// Runs the `vips` command (Debian libvips-tools, installed by scripts/install-deps.sh --test).
    static func vips(_ arguments: [String]) throws {
        let command = try #require(["/usr/bin/vips", "/usr/local/bin/vips"].first {
            FileManager.default.isExecutableFile(atPath: $0)
        }, "the vips command is missing: scripts/install-deps.sh --test installs it")
        let outcome = try Command.run(command, arguments)
        #expect(outcome.status == 0, "vips \(arguments.joined(separator: " ")): \(outcome.output)")
    }

    /// An APP1 EXIF segment after SOI whose one tag is Orientation (0x0112), as a phone writes it.
    static func withOrientation(_ jpeg: [UInt8], _ orientation: UInt8) -> [UInt8] {
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, orientation, 0, 0, 0,
                             0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }

    @Test(arguments: 1...8)
    func everyOrientationIsShownAsLibvipsTurnsIt(orientation: UInt8) throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = folder + "/plain.jpg", turned = folder + "/turned.jpg", reference = folder + "/reference.png"
        try TestImages.writeJPEG(width: 120, height: 80, to: plain)
        try Data(Self.withOrientation([UInt8](Data(contentsOf: URL(fileURLWithPath: plain))), orientation))
            .write(to: URL(fileURLWithPath: turned))
        try Self.vips(["autorot", turned, reference])
        let expected = try VImage.open(reference)
        let shown = try SourceImage.open(turned)
        #expect(shown.width == expected.width && shown.height == expected.height)
        #expect(try shown.pixels() == expected.pixels())
        let header = try ImageHeader.read(turned)
        #expect(header.width == (orientation >= 5 ? 80 : 120) && header.height == (orientation >= 5 ? 120 : 80))
    }

    /// A P3 or CMYK profile is converted as `vips icc_transform` converts; an sRGB profile (what cameras
    /// embed) is left alone, its conversion being the identity within a rounding.
    @Test func profilesAreConvertedAsLibvipsConvertsThem() throws {
        try Vips.start()
        let folder = try TestImages.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plain = folder + "/plain.jpg"
        try TestImages.writeJPEG(width: 96, height: 64, to: plain)
        for (name, profile) in [("p3", "p3"), ("srgb", "srgb"), ("cmyk", "cmyk")] {
            let tagged = folder + "/\(name).jpg", reference = folder + "/\(name)-srgb.png"
            try Self.vips(["icc_transform", plain, tagged + "[Q=95]", profile, "--input-profile", "srgb"])
            try Self.vips(["icc_transform", tagged, reference, "srgb", "--embedded", "--intent", "relative"])
            let stored = try VImage.open(tagged, sequential: true)
            #expect(SourceImage.hasProfileToConvert(stored) == (name != "srgb"), "\(name)")
            let shown = try SourceImage.open(tagged).pixels()
            let expected = try VImage.open(reference).pixels()
            let worst = zip(shown, expected).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(shown.count == expected.count && worst <= 1, "\(name): \(worst) levels from libvips's conversion")
        }
        #expect(!SourceImage.hasProfileToConvert(try VImage.open(plain, sequential: true)), "no profile")
    }
}
