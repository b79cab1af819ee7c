import Foundation
import TestSupport

/// The real binary with stdout and stderr kept apart, for the access log (stdout) and the
/// server's messages (stderr), and for signals.
final class OpsServerProcess {
    let process = Process()
    let port = ServerProcess.freePort()
    let outPath: String
    let errPath: String

    init(images: String, data: String, arguments: [String] = [], environment: [String: String] = [:]) throws {
        outPath = data + "-stdout-\(UUID().uuidString.prefix(6)).log"
        errPath = data + "-stderr-\(UUID().uuidString.prefix(6)).log"
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: ServerProcess.executable)
        process.arguments = ["serve", "--images", images, "--data", data, "--port", String(port), "--host", "127.0.0.1",
                             "--public", TestServer.repositoryRoot + "/Public"] + arguments
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILESCOPE_") }
        env.merge(environment) { $1 }
        process.environment = env
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        try process.run()
        let end = Date().addingTimeInterval(30)
        while Date() < end {
            if (try? RawHTTP.get(port, "/healthz"))?.status == 200 { return }
            guard process.isRunning else { throw TestFailure("server exited: \(stderr)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("server did not start: \(stderr)")
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

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    func waitForExit(timeout: Double = 30) throws -> Int32 {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < end { Thread.sleep(forTimeInterval: 0.01) }
        guard !process.isRunning else { throw TestFailure("server still running after \(timeout) s") }
        return process.terminationStatus
    }
}
