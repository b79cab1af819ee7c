import Foundation
import TestSupport
import ScrollGeometry
import Testing
@testable import Imaging

/// libvips 8.14 aborts the process when dzsave cannot create a folder; these builds would have
/// killed the test binary (measured without `PyramidFolders`: the run ended in SIGABRT at the
/// first of them). Each must fail its own build with the path named, and the next build must work.
@Suite struct PyramidFoldersTests {
    /// A regular file where dzsave's tiles folder goes, for a PNG (the full pass runs first).
    @Test func aFileWhereTheTilesFolderGoesFailsTheBuild() throws {
        let folder = try TestImages.folder()
        let source = folder + "/source.png"
        try TestImages.writePNG(width: 600, height: 400, to: source)
        let work = folder + "/work"
        try FileManager.default.createDirectory(atPath: work + "/rest", withIntermediateDirectories: true)
        let blocker = work + "/rest/" + PyramidBuilder.tilesFolderName
        #expect(FileManager.default.createFile(atPath: blocker, contents: Data("x".utf8)))

        let error = #expect(throws: VipsError.self) {
            try PyramidBuilder().build(source: source, into: work, finished: { _ in })
        }
        #expect(error?.message.contains(blocker) == true)
        #expect(error?.message.contains("not a folder") == true)
        try expectAnotherBuildWorks(from: source, in: folder)
    }

    /// A regular file where one level's folder goes, for a JPEG (the base, from a reduced decode, runs first).
    @Test func aFileWhereALevelFolderGoesFailsTheBuild() throws {
        let folder = try TestImages.folder()
        let source = folder + "/source.jpeg"
        try TestImages.writeJPEG(width: 600, height: 400, to: source)
        let work = folder + "/work"
        let tiles = work + "/base/" + PyramidBuilder.tilesFolderName
        try FileManager.default.createDirectory(atPath: tiles, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: tiles + "/3", contents: Data()))

        let error = #expect(throws: VipsError.self) {
            try PyramidBuilder().build(source: source, into: work, finished: { _ in })
        }
        #expect(error?.message.contains(tiles + "/3") == true)
        try expectAnotherBuildWorks(from: source, in: folder)
    }

    /// A path through a regular file: ENOTDIR, which permission bits cannot give a root process.
    @Test func aPathThroughAFileNamesTheSystemReason() throws {
        let folder = try TestImages.folder()
        let file = folder + "/file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        let error = #expect(throws: VipsError.self) {
            try PyramidFolders.prepare(basename: file + "/staging/image", maxLevel: 3)
        }
        #expect(error?.message.contains(file + "/staging") == true)
        #expect(error?.message.contains(String(cString: strerror(ENOTDIR))) == true)
    }

    /// Every level folder exists afterwards, and preparing again (folders already there) succeeds.
    @Test func createsEveryLevelFolderAndAcceptsExistingOnes() throws {
        let folder = try TestImages.folder()
        let basename = folder + "/out/image"
        for _ in 0..<2 { try PyramidFolders.prepare(basename: basename, maxLevel: 4) }
        let levels = try FileManager.default.contentsOfDirectory(atPath: basename + "_files")
        #expect(Set(levels) == Set((0...4).map(String.init)))
    }

    private func expectAnotherBuildWorks(from source: String, in folder: String) throws {
        let out = folder + "/retry"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let pyramid = try PyramidBuilder().build(source: source, into: out)
        #expect(pyramid == Pyramid(width: 600, height: 400, tileSize: 254, overlap: 1))
        #expect(FileManager.default.fileExists(atPath: "\(out)/\(PyramidBuilder.tilesFolderName)/\(pyramid.maxLevel)/0_0.jpeg"))
    }
}
