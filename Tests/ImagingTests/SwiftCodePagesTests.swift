import Foundation
import Testing
import TestSupport
@testable import Imaging

/// Releasing the Swift code pages takes them out of the resident set, and the code runs on after it.
@Suite struct SwiftCodePagesTests {
    /// This process's file-backed resident kilobytes (code and read-only data of its binaries).
    private func residentFileKB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssFile:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test func releasingLowersTheResidentFilePagesAndCodeStillRuns() throws {
        let before = try residentFileKB()
        let released = try #require(SwiftCodePages.release())
        let after = try residentFileKB()
        #expect(released > 0)
        // The test runner's own Swift and Foundation code alone is several megabytes resident.
        #expect(after < before, "RssFile \(before) kB before, \(after) kB after")
        // Foundation and the standard library still work, their pages mapped back as they run.
        struct Sample: Codable, Equatable { var name: String; var values: [Double] }
        let sample = Sample(name: "tile \(released % 7)", values: [1.5, 2.5])
        let data = try JSONEncoder().encode(sample)
        #expect(try JSONDecoder().decode(Sample.self, from: data) == sample)
        #expect(String(format: "%05.1f", 3.14159) == "003.1")
    }

    /// The hook runs once per build, after a JPEG's base is handed over and before the full pass
    /// writes a tile; a build that releases there writes the same files as one that does not.
    @Test func aBuildThatReleasesBeforeItsFullPassWritesTheSamePyramid() throws {
        let folder = try TestImages.folder()
        try TestImages.writeJPEG(width: 3000, height: 2000, to: folder + "/source.jpg")
        final class Events: @unchecked Sendable { var log: [String] = [] }
        let events = Events()
        var releasing = PyramidBuilder()
        releasing.beforeFullPass = {
            let written = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/a/.parts/rest/image_files")) ?? []
            events.log.append("release after \(written.count) full-pass levels")
            SwiftCodePages.release()
        }
        for name in ["a", "b"] { try FileManager.default.createDirectory(atPath: "\(folder)/\(name)", withIntermediateDirectories: true) }
        let pyramid = try releasing.build(source: folder + "/source.jpg", into: folder + "/a")
        _ = try PyramidBuilder().build(source: folder + "/source.jpg", into: folder + "/b")
        #expect(events.log == ["release after 0 full-pass levels"])
        var compared = 0
        for level in pyramid.levels {
            let grid = pyramid.tileGrid(ofLevel: level)
            for column in 0..<grid.columns {
                for row in 0..<grid.rows {
                    let path = "image_files/\(level)/\(column)_\(row).jpeg"
                    let a = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a/\(path)"))
                    #expect(a == (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/b/\(path)"))), "\(path)")
                    compared += 1
                }
            }
        }
        #expect(compared > 100)
        for name in [PyramidBuilder.descriptorName, PyramidBuilder.previewName] {
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(folder)/a/\(name)"))
                == (try Data(contentsOf: URL(fileURLWithPath: "\(folder)/b/\(name)"))), "\(name)")
        }
    }
}
