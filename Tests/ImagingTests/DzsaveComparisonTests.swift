import Foundation
import TestSupport
import ScrollGeometry
import Testing
@testable import Imaging

/// Tilescope's pyramid against the one Debian's `vips dzsave` command makes from the same
/// source: same levels, same tile grid and sizes, and the same pixels.
@Suite struct DzsaveComparisonTests {
    static var vipsCommand: String? {
        ["/usr/bin/vips", "/usr/local/bin/vips"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Fails without the command rather than skipping: a plain `swift test` must test what CI tests.
    @Test func sameLevelsTilesAndPixelsAsVipsDzsave() throws {
        guard let vips = Self.vipsCommand else {
            throw TestFailure("no vips command in /usr/bin or /usr/local/bin: install it (Debian libvips-tools) "
                              + "with scripts/install-deps.sh --test")
        }
        let folder = try TestImages.folder()
        let source = folder + "/source.png"
        try TestImages.pattern(width: 2100, height: 1300, at: source)
        let ours = folder + "/ours"
        try FileManager.default.createDirectory(atPath: ours, withIntermediateDirectories: true)
        let pyramid = try PyramidBuilder().build(source: source, into: ours)

        let dzsave = try Command.run(vips, ["dzsave", source, folder + "/theirs", "--tile-size", "254", "--overlap", "1",
                                            "--suffix", ".jpeg[Q=85]", "--layout", "dz"])
        #expect(dzsave.status == 0, "\(dzsave.output)")

        let files = FileManager.default
        let ourLevels = try files.contentsOfDirectory(atPath: ours + "/image_files").filter { Int($0) != nil }
        let theirLevels = try files.contentsOfDirectory(atPath: folder + "/theirs_files").filter { Int($0) != nil }
        #expect(Set(ourLevels) == Set(theirLevels))
        #expect(ourLevels.count == pyramid.maxLevel + 1)
        var worst = Double.infinity
        for level in pyramid.levels {
            let ourTiles = try files.contentsOfDirectory(atPath: "\(ours)/image_files/\(level)").sorted()
            let theirTiles = try files.contentsOfDirectory(atPath: "\(folder)/theirs_files/\(level)").sorted()
            #expect(ourTiles == theirTiles, "level \(level)")
            let grid = pyramid.tileGrid(ofLevel: level)
            #expect(ourTiles.count == grid.columns * grid.rows)
            for name in ourTiles {
                let a = try VImage.open("\(ours)/image_files/\(level)/\(name)")
                let b = try VImage.open("\(folder)/theirs_files/\(level)/\(name)")
                #expect(a.width == b.width && a.height == b.height, "\(level)/\(name)")
                guard a.width == b.width && a.height == b.height else { continue }
                worst = min(worst, TestImages.psnr(try a.pixels(), try b.pixels()))
            }
        }
        #expect(worst > 40, "lowest tile PSNR \(worst) dB")
        let descriptor = try String(contentsOfFile: ours + "/image.dzi", encoding: .utf8)
        #expect(descriptor.contains(#"Width="2100""#) && descriptor.contains(#"Height="1300""#))
    }
}
