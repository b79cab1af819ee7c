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

    /// Two processes with the same explicit `--replica-id` share a staging root, never a build folder.
    @Test func storesWithOneStagingNameStillBuildInTheirOwnFolders() throws {
        let data = try Self.dataFolder("same-replica")
        let first = try FilePyramidStore(dataFolder: data, stagingName: "staging-r1")
        let second = try FilePyramidStore(dataFolder: data, stagingName: "staging-r1")
        #expect(first.stagingRoot != second.stagingRoot)
        let a = try first.makeStagingFolder(id: "tiger", version: "1")
        let b = try second.makeStagingFolder(id: "tiger", version: "1")
        #expect(a.hasPrefix(first.stagingRoot + "/") && b.hasPrefix(second.stagingRoot + "/"))
    }

    /// One version is built by one holder at a time, across stores on one data folder; letting go
    /// removes the lock file, and a free one left behind is wiped by the next store.
    @Test func oneBuilderHoldsAVersionAtATime() throws {
        let data = try Self.dataFolder("hold")
        let first = try FilePyramidStore(dataFolder: data)
        let second = try FilePyramidStore(dataFolder: data)
        let held = try #require(try first.holdBuild(id: "tiger", version: "1", wait: false))
        #expect(try second.holdBuild(id: "tiger", version: "1", wait: false) == nil)
        #expect(try first.holdBuild(id: "tiger", version: "1", wait: false) == nil, "a second builder in the same process waits too")
        let other = try #require(try second.holdBuild(id: "tiger", version: "2", wait: false), "another version is free")
        held.release()
        held.release()  // idempotent
        #expect(!FileManager.default.fileExists(atPath: data + "/building/tiger-1.lock"))
        let again = try #require(try second.holdBuild(id: "tiger", version: "1", wait: false))
        again.release()
        other.release()
        // A lock file nobody holds (its process ended) goes with the next store's start.
        FileManager.default.createFile(atPath: data + "/building/lion-1.lock", contents: nil)
        _ = try FilePyramidStore(dataFolder: data)
        #expect(!FileManager.default.fileExists(atPath: data + "/building/lion-1.lock"))
    }
}
