import Foundation
import Testing
import TestSupport

/// `tilescope build` says where each image's build went, phase by phase (issue 43), and leaves no staging
/// folder behind although finished builds' folders are removed on a thread of their own.
@Suite struct BuildPhasesLogTests {
    @Test func buildLogsEveryPhaseOfAJPEGAndLeavesNoStaging() throws {
        let root = try TestScratch.folder("build-phases")
        let images = root + "/images", data = root + "/data"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        // photo0 is over 4096 px, so its base comes before the full pass; the others are photo-size, whose base
        // comes from the full pass (PyramidBuilder.previewComesFirst).
        for index in 0..<3 {
            let (width, height) = index == 0 ? (4400, 900) : (1500, 1100)
            try TestImages.writeJPEG(width: width, height: height, to: images + "/photo\(index).jpg", seed: index)
        }
        let build = try Command.run(ServerProcess.executable, ["build", "--data", data] + (0..<3).map { images + "/photo\($0).jpg" },
                                    environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") })
        #expect(build.status == 0, "tilescope build: \(build.output)")
        let lines = build.output.split(separator: "\n").filter { $0.contains("phases:") }
        #expect(lines.count == 3, "one phases line an image: \(build.output)")
        for line in lines {
            // Every phase that ran is named, each with a time; the reduced decode only where it ran.
            let previewFirst = line.contains("photo0:")
            for phase in ["prepare", "open", "base", "levels", "publish", "flush", "cleanup"] + (previewFirst ? ["preview-decode"] : []) {
                #expect(line.range(of: " \(phase) [0-9]+\\.[0-9]{3} s", options: .regularExpression) != nil, "\(phase) in \(line)")
            }
            #expect(line.contains(" preview-decode ") == previewFirst, "the reduced decode in \(line)")
            #expect(line.contains("RssAnon"), "memory by phase in \(line)")
        }
        #expect(build.output.contains("catalog: ids of 3 names"))
        // Several images: the build started itself again with the threads' malloc caches off (MallocArenas).
        #expect(build.output.contains("threads' caches off"), "\(build.output)")
        // The sweeper finished before the store went: no staging folder or lock is left.
        let left = (try? FileManager.default.contentsOfDirectory(atPath: data + "/staging")) ?? []
        #expect(left.isEmpty, "left in staging: \(left)")
        for index in 0..<3 {
            let versions = try FileManager.default.contentsOfDirectory(atPath: data + "/pyramids/photo\(index)")
            #expect(versions.count == 1)
            #expect(FileManager.default.fileExists(atPath: data + "/pyramids/photo\(index)/\(versions[0])/preview.jpeg"))
        }
    }

    /// A setting of the threads' caches in the environment is the operator's: kept, not overridden, and the build
    /// does not start itself again.
    @Test func aBuildKeepsTheThreadCachesTheEnvironmentSets() throws {
        let root = try TestScratch.folder("build-thread-caches")
        for index in 0..<2 { try TestImages.writeJPEG(width: 600, height: 400, to: root + "/photo\(index).jpg", seed: index) }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") }
        environment["GLIBC_TUNABLES"] = "glibc.malloc.tcache_count=7"
        let build = try Command.run(ServerProcess.executable, ["build", "--data", root + "/data", root + "/photo0.jpg", root + "/photo1.jpg"],
                                    environment: environment)
        #expect(build.status == 0, "tilescope build: \(build.output)")
        #expect(build.output.contains("threads' caches on"), "\(build.output)")
        #expect(build.output.split(separator: "\n").filter { $0.contains("phases:") }.count == 2, "\(build.output)")
    }

    /// The pass down the source is where a build's memory peaks, not its opening: measured in a process of its own,
    /// where nothing else moves the RssAnon sampled at each phase.
    @Test func theLevelsPassIsWhereABuildsMemoryPeaks() throws {
        let root = try TestScratch.folder("build-phases-memory")
        try TestImages.writeJPEG(width: 3000, height: 2000, to: root + "/source.jpg")
        let build = try Command.run(ServerProcess.executable, ["build", "--data", root + "/data", root + "/source.jpg"],
                                    environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") })
        #expect(build.status == 0, "tilescope build: \(build.output)")
        let line = try #require(build.output.split(separator: "\n").first { $0.contains("phases:") }.map(String.init))
        func megabytes(_ phase: String) -> Int? {
            guard let match = line.range(of: " \(phase) [0-9.]+ s \\(RssAnon [0-9]+ MB\\)", options: .regularExpression) else { return nil }
            return Int(line[match].split(separator: " ").dropLast().last ?? "")
        }
        let open = try #require(megabytes("open"), "\(line)"), levels = try #require(megabytes("levels"), "\(line)")
        #expect(levels > open, "the pass is where memory peaks: \(line)")
    }
}
