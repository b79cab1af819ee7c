import Foundation
import Testing
import TestSupport

/// The real binary at start: bad folders and values are one line and exit status 2; SIGHUP drains
/// like SIGTERM and says so.
@Suite struct StartupTests {
    /// Runs `tilescope serve` with `arguments` until it exits (it must, within 30 s).
    func serve(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ServerProcess.executable)
        process.arguments = ["serve", "--host", "127.0.0.1", "--port", "0"] + arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    @Test func unusableFoldersAndValuesAreOneLineAndStatusTwo() throws {
        let root = try TestImages.folder("startup-errors")
        let file = root + "/a-file"
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        let cases: [([String], String)] = [
            (["--data", file, "--images", root], "data folder '\(file)' is not a folder"),
            (["--data", file + "/below", "--images", root], "is not a folder"),
            (["--images", file], "images folder '\(file)' is not a folder"),
            (["--images", root + "/missing"], "does not exist"),
            (["--images", root, "--data", root + "/data", "--cors-origin", "https://a.example\r\nX-Injected: 1"], "cors origin"),
        ]
        for (arguments, message) in cases {
            let (status, stderr) = try serve(arguments)
            #expect(status == 2, "\(arguments): \(stderr)")
            let lines = stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(arguments): \(stderr)")
            #expect(stderr.contains(message), "\(arguments): \(stderr)")
            #expect(!stderr.contains("NSCocoaErrorDomain"))
        }
    }

    @Test func sighupDrainsLikeSigtermAndIsLogged() throws {
        let root = try TestImages.folder("startup-sighup")
        try FileManager.default.createDirectory(atPath: root + "/images", withIntermediateDirectories: true)
        let server = try ServerProcess(images: root + "/images", data: root + "/data", extra: [])
        try server.waitUntilListening()
        server.signal(SIGHUP)
        #expect(try server.waitForExit(timeout: 30) == 0)
        #expect(server.log.contains("SIGHUP received: stopping"), "\(server.log)")
        #expect(server.log.contains("stopped"))
    }
}
