import Foundation
import TestSupport
import Testing
@testable import Tilescope

/// A store wipes only staging folders nobody owns: never a build in progress of another store on
/// the same data folder (libvips aborts the process when a folder vanishes under dzsave).
@Suite struct StagingAreaTests {
    private static func dataFolder(_ label: String) throws -> String {
        try TestScratch.folder("staging-\(label)")
    }

    @Test func aSecondStoreLeavesTheFirstStoresBuildsAlone() throws {
        let data = try Self.dataFolder("two")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let first = try FilePyramidStore(dataFolder: data)
        let building = try first.makeStagingFolder(id: "tiger", version: "1")
        try Data("tile".utf8).write(to: URL(fileURLWithPath: building + "/0_0.jpeg"))
        let second = try FilePyramidStore(dataFolder: data)
        #expect(FileManager.default.fileExists(atPath: building + "/0_0.jpeg"))
        #expect(first.stagingRoot != second.stagingRoot)
        #expect(try second.makeStagingFolder(id: "tiger", version: "1").hasPrefix(second.stagingRoot + "/"))
    }

    @Test func foldersOfStoresThatAreGoneAreWiped() throws {
        let data = try Self.dataFolder("gone")
        defer { try? FileManager.default.removeItem(atPath: data) }
        var abandoned = ""
        do {
            let store = try FilePyramidStore(dataFolder: data)
            abandoned = try store.makeStagingFolder(id: "tiger", version: "1")
        }
        // A crash leaves the folder behind; so does the layout before owners (no lock file).
        let owner = (abandoned as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: abandoned, withIntermediateDirectories: true)
        let legacy = data + "/staging/tiger-1-abcdef12"
        try FileManager.default.createDirectory(atPath: legacy, withIntermediateDirectories: true)
        let store = try FilePyramidStore(dataFolder: data)
        #expect(!FileManager.default.fileExists(atPath: owner))
        #expect(!FileManager.default.fileExists(atPath: legacy))
        let left = try FileManager.default.contentsOfDirectory(atPath: data + "/staging").sorted()
        let own = (store.stagingRoot as NSString).lastPathComponent
        #expect(left == [own, own + ".lock"])
    }
}
