import Foundation
import Imaging
import TestSupport
import Testing

/// Publishing a file on a real file system: the whole content under the final name, an existing file
/// replaced whole, no temporary file left behind whether it worked or not, and every failure thrown.
@Suite(.serialized) struct AtomicFileTests {
    private func entries(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    @Test(arguments: [AtomicFile.Durability.none, .file, .fileAndFolder])
    func bytesArePublishedWholeAndReplaceTheFileBefore(_ durability: AtomicFile.Durability) throws {
        let folder = try TestScratch.folder("atomic-file")
        let path = folder + "/tile.jpg"
        let first = (0..<100_000).map { UInt8($0 % 251) }
        try AtomicFile.publish(first, at: path, durability: durability)
        #expect(contents(path) == first)
        #expect(try entries(folder) == ["tile.jpg"])
        // A shorter file replaces it whole: nothing of the longer one is left at its end.
        try AtomicFile.publish([7, 8, 9], at: path, durability: durability)
        #expect(contents(path) == [7, 8, 9])
        try AtomicFile.publish([], at: path, durability: durability)
        #expect(contents(path) == [])
        #expect(try entries(folder) == ["tile.jpg"])
    }

    @Test func aWriterFillsTheTemporaryFileBesideTheFinalOne() throws {
        let folder = try TestScratch.folder("atomic-writer")
        let path = folder + "/image.png"
        var handed: String?
        try AtomicFile.publish(at: path, durability: .file) { temporary in
            handed = temporary
            // Hidden, in the same folder, and named after the file it becomes.
            #expect((temporary as NSString).deletingLastPathComponent == folder)
            #expect(AtomicFile.isTemporary((temporary as NSString).lastPathComponent, of: "image.png"))
            #expect(!FileManager.default.fileExists(atPath: path))
            try Data("whole".utf8).write(to: URL(fileURLWithPath: temporary))
        }
        #expect(contents(path) == Array("whole".utf8))
        #expect(handed.map { !FileManager.default.fileExists(atPath: $0) } == true)
        #expect(try entries(folder) == ["image.png"])
    }

    @Test func aWriterThatFailsLeavesTheOldFileAndNoTemporary() throws {
        struct PainterFailed: Error {}
        let folder = try TestScratch.folder("atomic-failed-writer")
        let path = folder + "/image.png"
        try AtomicFile.publish([1, 2, 3], at: path, durability: .file)
        #expect(throws: PainterFailed.self) {
            try AtomicFile.publish(at: path, durability: .file) { temporary in
                try Data("half".utf8).write(to: URL(fileURLWithPath: temporary))
                throw PainterFailed()
            }
        }
        #expect(contents(path) == [1, 2, 3])
        #expect(try entries(folder) == ["image.png"])
    }

    @Test func aMissingFolderIsReportedAsSuch() throws {
        let folder = try TestScratch.folder("atomic-missing")
        let error = #expect(throws: AtomicFile.Failure.self) {
            try AtomicFile.publish([1], at: folder + "/gone/tile.jpg", durability: .file)
        }
        #expect(error?.isMissingFolder == true)
        #expect(try entries(folder) == [])
    }

    @Test func temporaryNamesDifferOnEveryCall() {
        let names = (0..<100).map { _ in AtomicFile.temporaryPath(for: "/data/v/iiif/0/0_0.jpg") }
        #expect(Set(names).count == 100)
        #expect(names.allSatisfy { $0.hasPrefix("/data/v/iiif/0/.0_0.jpg.") && $0.hasSuffix(".partial") })
        #expect(AtomicFile.temporaryPath(for: "bare").hasPrefix(".bare."))
        #expect(!AtomicFile.isTemporary("0_0.jpg", of: "0_0.jpg"))
        #expect(!AtomicFile.isTemporary(".0_0.jpg.1-a-2.partial", of: "0_0.jp"))
    }

    // MARK: - Real failing file systems (a tmpfs mounted for the test: root only; as another user, a folder
    // without write permission stands in for the read-only one)

    static var canMount: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/bin/mount") }

    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        try Command.run(tool, arguments).status
    }

    @Test(.enabled(if: geteuid() != 0 || canMount, "a read-only folder needs a mount as root"))
    func aReadOnlyFolderIsReported() throws {
        let folder = try TestScratch.folder("atomic-read-only")
        if geteuid() == 0 {
            #expect(try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", folder]) == 0)
        } else {
            #expect(chmod(folder, 0o555) == 0)
        }
        defer { if geteuid() == 0 { _ = try? Self.run("/bin/umount", ["-l", folder]) } else { chmod(folder, 0o755) } }
        let error = #expect(throws: AtomicFile.Failure.self) {
            try AtomicFile.publish([1, 2, 3], at: folder + "/tile.jpg", durability: .file)
        }
        #expect(error?.step == .create)
        #expect(error.map { $0.code == EROFS || $0.code == EACCES } == true, "\(String(describing: error))")
        #expect(try entries(folder) == [])
    }

    @Test(.enabled(if: canMount, "mounting a tmpfs needs root"))
    func aFullDiskIsReportedAndTheHalfWrittenFileRemoved() throws {
        let folder = try TestScratch.folder("atomic-full")
        #expect(try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", folder]) == 0)
        defer { _ = try? Self.run("/bin/umount", ["-l", folder]) }
        try AtomicFile.publish([1, 2, 3], at: folder + "/tile.jpg", durability: .file)
        let error = #expect(throws: AtomicFile.Failure.self) {
            try AtomicFile.publish([UInt8](repeating: 5, count: 1 << 20), at: folder + "/tile.jpg", durability: .file)
        }
        #expect(error?.code == ENOSPC, "\(String(describing: error))")
        #expect(contents(folder + "/tile.jpg") == [1, 2, 3])
        #expect(try entries(folder) == ["tile.jpg"])
    }
}
