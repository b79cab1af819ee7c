import Catalog
import Foundation
import Testing

/// The images folder's listing: regular files (and links to them) of names not ignored, sorted, with
/// the directory's own entry types standing in for a `stat` per file.
@Suite struct SourceFolderTests {
    @Test func onlyRegularFilesAndLinksToThemAreSources() throws {
        let folder = try TemporaryFolder()
        let path = folder.path
        for name in ["b.jpg", "a.png", ".hidden.jpg", "notes.txt", "backup.jpg~", "captions.json"] {
            #expect(FileManager.default.createFile(atPath: path + "/" + name, contents: Data([1])))
        }
        try FileManager.default.createDirectory(atPath: path + "/folder.jpg", withIntermediateDirectories: false)
        #expect(symlink(path + "/b.jpg", path + "/link-to-file.jpg") == 0)
        #expect(symlink(path + "/folder.jpg", path + "/link-to-folder.jpg") == 0)
        #expect(symlink(path + "/missing.jpg", path + "/dangling.jpg") == 0)
        #expect(mkfifo(path + "/pipe.jpg", 0o644) == 0)
        #expect(try SourceFolder.listSources(in: path) == ["a.png", "b.jpg", "link-to-file.jpg"])
        #expect(throws: (any Error).self) { try SourceFolder.listSources(in: path + "/missing") }
    }
}
