import Foundation
import Testing
@testable import Catalog

/// An acknowledged rating survives `kill -9` of the process that wrote it.
///
/// The test binary runs itself again as a child that executes only `childWritesRatingsUntilKilled`
/// (enabled by an environment variable). The child prints one line per rating after `setRating`
/// returned; the parent SIGKILLs it as soon as it has read enough of those, then opens the file
/// and expects every acknowledged rating.
@Suite struct DurabilityTests {
    static let databaseVariable = "CATALOG_TESTS_DURABILITY_CHILD_DATA"
    static let acknowledgementsBeforeKill = 60

    @Test func acknowledgedRatingsSurviveKill9() throws {
        let folder = try TemporaryFolder()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        child.arguments = ["--testing-library", "swift-testing", "--filter", "childWritesRatingsUntilKilled"]
        var environment = ProcessInfo.processInfo.environment
        environment[Self.databaseVariable] = folder.path
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()

        // If the child never acknowledges enough (it broke), do not hang the suite.
        let pid = child.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)

        var acknowledged: [String: Int] = [:]
        var pending = ""
        reading: while true {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break } // end of output: the child is gone
            pending += String(decoding: data, as: UTF8.self)
            while let newline = pending.firstIndex(of: "\n") {
                let line = pending[..<newline]
                pending = String(pending[pending.index(after: newline)...])
                let fields = line.split(separator: " ")
                guard fields.count == 3, fields[0] == "ACK", let rating = Int(fields[2]) else { continue }
                acknowledged[String(fields[1])] = rating
                if acknowledged.count == Self.acknowledgementsBeforeKill {
                    kill(pid, SIGKILL) // right after the acknowledgement, while the child keeps writing
                    break reading
                }
            }
        }
        child.waitUntilExit()
        watchdog.cancel()
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGKILL)
        #expect(acknowledged.count == Self.acknowledgementsBeforeKill)

        let store = try SQLiteRatingStore(dataFolder: folder.path)
        let stored = try store.ratings(for: Array(acknowledged.keys))
        #expect(stored == acknowledged)
        #expect(try store.database.read { try $0.query("PRAGMA integrity_check")[0][0] } == "ok")
    }

    /// The child's side; skipped unless the parent test started this process.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[databaseVariable] != nil))
    func childWritesRatingsUntilKilled() throws {
        let dataFolder = try #require(ProcessInfo.processInfo.environment[Self.databaseVariable])
        let store = try SQLiteRatingStore(dataFolder: dataFolder)
        // Far more than the parent waits for: it kills this process long before the end.
        for index in 0..<20_000 {
            let id = "kill-\(index)"
            let rating = index % 11
            try store.setRating(rating, for: id)
            // One unbuffered write per line: the parent sees it as soon as the rating is stored.
            FileHandle.standardOutput.write(Data("ACK \(id) \(rating)\n".utf8))
        }
    }
}
