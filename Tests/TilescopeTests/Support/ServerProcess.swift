import Foundation
import TestSupport

/// The real `tilescope` binary run as a child process, for tests that kill it or signal it.
final class ServerProcess {
    let process = Process()
    let port: Int
    let outPath: String
    let errPath: String

    /// The executable built next to this test bundle by `swift build --build-tests`.
    static var executable: String {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var candidate = bundle
        while candidate.path != "/" {
            let path = candidate.appendingPathComponent("tilescope").path
            if FileManager.default.isExecutableFile(atPath: path) { return path }
            candidate.deleteLastPathComponent()
        }
        return TestServer.repositoryRoot + "/.build/debug/tilescope"
    }

    /// stdout (the access log) and stderr (messages) go to separate files. TILESCOPE_ variables
    /// of the test's own environment are not passed on, so only `environment` configures it.
    init(images: String, data: String, extra: [String] = [], environment: [String: String] = [:]) throws {
        port = ServerProcess.freePort()
        let stem = data + "-server-\(UUID().uuidString.prefix(6))"
        outPath = stem + ".stdout.log"
        errPath = stem + ".stderr.log"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = ["serve", "--images", images, "--data", data, "--port", String(port), "--host", "127.0.0.1",
                             "--rescan", "1", "--settle", "0", "--public", TestServer.repositoryRoot + "/Public"] + extra
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") }
            .merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        try waitUntilListening()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        // Foundation watches the child from a dispatch queue through an unowned reference to the
        // Process: let it see the exit before the Process goes away, or it crashes the test run.
        process.waitUntilExit()
    }

    var stdout: String { (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    /// Everything the server wrote, for failure messages.
    var log: String { stderr + stdout }

    func waitUntilListening(timeout: Double = 30) throws {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if (try? RawHTTP.get(port, "/healthz"))?.status == 200, libraryScanned() { return }
            guard process.isRunning else { throw TestFailure("server exited: \(log)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("server did not start listening: \(log)")
    }

    /// Whether /readyz's `library` check passes: a first start answers while its first scan lists the
    /// folder (docs/gallery-scale.md), and the tests read the folder's images from their first request.
    func libraryScanned() -> Bool {
        guard let checks = (try? RawHTTP.get(port, "/readyz"))?.json?["checks"] as? [[String: Any]] else { return false }
        return checks.contains { $0["name"] as? String == "library" && $0["ok"] as? Bool == true }
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the process to end and returns its exit status.
    func waitForExit(timeout: Double = 30) throws -> Int32 {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.02) }
        guard !process.isRunning else { throw TestFailure("server still running after \(timeout) s") }
        return process.terminationStatus
    }

    /// A port nothing listens on right now (bind to 0, read it, close).
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                _ = bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
