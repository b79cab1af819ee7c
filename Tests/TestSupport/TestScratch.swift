import Foundation

/// Scratch folders for one test process, all inside one folder that is removed when the process exits.
///
/// Why: the suites make a few hundred folders per run (images, data folders, pyramids; up to 100 MB
/// each), and the tests that use them cannot know when a server or a build behind them is done with
/// them. Removing them one by one was left undone, and /tmp grew by about 700 MB per suite run. One
/// root per process, removed by an `atexit` handler, needs no test to clean up after itself.
/// A process that crashes keeps its root, which is then what one wants to look at; so does every
/// run with `TILESCOPE_KEEP_TEST_FILES=1`.
public enum TestScratch {
    /// `$TMPDIR/tilescope-tests-<pid>`, made (and the exit handler installed) on first use.
    public static let root: String = {
        let path = NSTemporaryDirectory() + "tilescope-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        if ProcessInfo.processInfo.environment["TILESCOPE_KEEP_TEST_FILES"] == nil {
            atexit { TestScratch.removeRoot() }
        }
        return path
    }()

    /// A new, empty folder named after `label` (letters and digits kept).
    public static func folder(_ label: String) throws -> String {
        let label = label.filter { $0.isLetter || $0.isNumber || $0 == "-" }
        let path = root + "/\(label)-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Depth first, every entry on its own, a few passes. In-process servers and builds may still be
    /// writing when the process exits; `FileManager.removeItem` stops at the first entry that fails (a
    /// folder that gained a file meanwhile) and left some 20 folders of a suite run behind.
    private static func removeRoot() {
        for _ in 0..<5 {
            removeTree(root)
            if access(root, F_OK) != 0 { return }
            usleep(20_000)
        }
    }

    private static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                removeTree(path + "/" + name)
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
