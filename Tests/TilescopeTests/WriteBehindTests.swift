import Foundation
import Imaging
import ScrollGeometry
import TestSupport
import Testing
@testable import Tilescope

/// The write-behind of a staging folder runs while the full pass writes tiles and ends, without
/// waiting, as soon as the first finer level is handed over: a periodic flush started after the last
/// tile would only hold up the build's end.
@Suite struct WriteBehindTests {
    @Test func aRealBuildStopsWritingBehindWhenItsFullPassEnds() throws {
        let folder = try TestImages.folder("write-behind")
        let source = folder + "/big.jpg"
        // Over 4096 px: a JPEG whose base comes before the full pass (PyramidBuilder.previewComesFirst).
        try TestImages.writeJPEG(width: 4400, height: 1400, to: source)
        let store = try FilePyramidStore(dataFolder: folder + "/data")
        let staging = try store.makeStagingFolder(id: "big", version: "v1")
        let builder = PyramidBuilder()
        var writingAtBase: Bool?
        var writingAfterLevel: [Int: Bool] = [:]
        let pyramid = try store.building(into: staging) { _ in
            try builder.build(source: source, into: staging) { part in
                let manifest = PyramidManifest(pyramid: part.pyramid, source: "big.jpg", version: "v1",
                                               readyLevels: part.levels.upperBound + 1)
                switch part.kind {
                case .base:
                    // The base of a JPEG comes before the full pass: its tiles are still to be written.
                    writingAtBase = WriteBehind.isWriting(under: part.folder)
                    #expect(try store.publish(stagingFolder: part.folder, manifest: manifest, id: "big", version: "v1"))
                case .level:
                    try store.publishLevel(part.levels.lowerBound, from: part.folder, manifest: manifest, id: "big", version: "v1")
                    writingAfterLevel[part.levels.lowerBound] = WriteBehind.isWriting(under: staging)
                }
            }
        }
        #expect(writingAtBase == true)
        let finer = (pyramid.previewLevel() + 1)...pyramid.maxLevel
        #expect(Set(writingAfterLevel.keys) == Set(finer))
        #expect(writingAfterLevel.values.allSatisfy { !$0 }, "\(writingAfterLevel)")
        #expect(!WriteBehind.isWriting(under: staging), "the build is over")
        #expect(store.manifest(id: "big", version: "v1")?.isComplete == true)
    }

    /// A photo's base is stitched from the pass's tiles: the builder says when the pass has written its last one,
    /// before it hands over the base, so a store can start writing them out while the base is made.
    @Test func theBuilderSaysThePassIsWrittenBeforeItStitchesThePhotosBase() throws {
        let folder = try TestImages.folder("pass-written")
        let source = folder + "/photo.jpg"
        try TestImages.writeJPEG(width: 1200, height: 900, to: source)  // base after the full pass
        try FileManager.default.createDirectory(atPath: folder + "/work", withIntermediateDirectories: true)
        var events: [String] = []
        let pyramid = try PyramidBuilder().build(source: source, into: folder + "/work", passWritten: {
            let deepest = PyramidBuilder.passTilesFolder(inWork: folder + "/work") + "/11"
            events.append("pass written, \((try? FileManager.default.contentsOfDirectory(atPath: deepest))?.count ?? 0) deepest tiles")
        }) { part in
            events.append(part.kind == .base ? "base" : "level \(part.levels.lowerBound)")
        }
        #expect(pyramid.maxLevel == 11)
        #expect(events == ["pass written, 20 deepest tiles", "base", "level 11"])
    }

    /// Asked to write out now, the write-behind does not wait for its next turn (here a minute away).
    @Test func aWriteOutAskedForRunsAtOnce() throws {
        let folder = try TestImages.folder("write-out-now")
        var flushes: [Int?] = []
        let writer = WriteBehind(folder: folder, interval: 60)
        try writer.during {
            flushes.append(WriteBehind.flushes(under: folder))
            writer.writeOutNow()
            let deadline = Date().addingTimeInterval(30)
            while WriteBehind.flushes(under: folder) == 0, Date() < deadline { usleep(1000) }
            flushes.append(WriteBehind.flushes(under: folder))
        }
        #expect(flushes == [0, 1])
        #expect(WriteBehind.flushes(under: folder) == nil, "its thread is gone with the build")
    }

    @Test func endingOneFolderLeavesAnotherWithTheSamePrefixWriting() throws {
        let root = try TestImages.folder("write-behind-prefix")
        let first = root + "/build-1", second = root + "/build-10"
        for path in [first, second] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        try WriteBehind(folder: first, interval: 60).during {
            try WriteBehind(folder: second, interval: 60).during {
                #expect(WriteBehind.isWriting(under: first + "/rest/image_files/12"))
                #expect(WriteBehind.isWriting(under: second))
                WriteBehind.endWrites(under: second + "/rest/image_files/12")
                #expect(!WriteBehind.isWriting(under: second))
                #expect(WriteBehind.isWriting(under: first), "build-1 is not build-10's parent")
                #expect(!WriteBehind.isWriting(under: root + "/build-2"))
            }
            #expect(WriteBehind.isWriting(under: first))
        }
        #expect(!WriteBehind.isWriting(under: first))
    }
}
