import Foundation
import TestSupport
import XCTest
@testable import Tilescope

/// What a service starts, its stop ends: threads and open descriptors do not grow over 50 starts and
/// stops in one process (each with a request served, a rescan run and a pyramid built).
///
/// An XCTest case, not a Swift Testing one, on purpose: `swift test` runs the XCTest cases on their own,
/// before the Swift Testing suites, which run in parallel and would start and end threads of their own
/// while this one counts the process's threads.
final class ServiceLifecycleTests: XCTestCase {
    static func count(_ folder: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? -1
    }

    /// Descriptors of this process open on files under `root`: the services' own (catalog, WAL,
    /// pyramids, sources), whatever other suites running alongside have open.
    static func descriptors(under root: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { fd in
            ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "").hasPrefix(root)
        }.count
    }

    static func paths(under root: String) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return Array(Set(fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix(root) })).sorted()
    }

    /// The process's threads once those of a stopped service had a moment to end (build threads end
    /// on their own after `stop` wakes them).
    static func settledThreads(atMost limit: Int) -> Int {
        var current = count("/proc/self/task")
        for _ in 0..<100 where current > limit {
            Thread.sleep(forTimeInterval: 0.05)
            current = count("/proc/self/task")
        }
        return current
    }

    func testFiftyStartsAndStopsLeaveNoThreadOrDescriptorBehind() throws {
        let root = try TestImages.folder("lifecycle")
        let images = root + "/images"
        try FileManager.default.createDirectory(atPath: images, withIntermediateDirectories: true)
        try TestImages.writeJPEG(width: 300, height: 200, to: images + "/small.jpg", seed: 1)
        func cycle(_ index: Int) throws {
            var config = ServeConfig()
            config.host = "127.0.0.1"
            config.port = 0
            config.imagesFolder = images
            config.dataFolder = root + "/data"
            config.publicFolder = TestServer.repositoryRoot + "/Public"
            config.rescanSeconds = 1
            config.settleSeconds = 0
            config.quiet = true
            Log.quiet = true
            let service = try TilescopeService(config)
            try service.start()
            XCTAssertEqual(try RawHTTP.get(service.server.port, "/healthz").status, 200)
            service.stop()
        }
        // The first cycles create what lives for the process (libvips's threads, Dispatch's pool).
        for index in 0..<5 { try cycle(index) }
        let before = Self.count("/proc/self/task")
        for index in 5..<50 { try cycle(index) }
        // A small margin for threads the runtime keeps or ends late, far below the 45 a leak of one
        // thread per cycle leaves.
        let after = Self.settledThreads(atMost: before + 5)
        XCTAssertLessThanOrEqual(after, before + 5, "threads \(before) -> \(after) over 45 starts and stops")
        // A stopped build queue's threads let go of the catalog as they end, shortly after `stop`.
        var open = Self.descriptors(under: root)
        for _ in 0..<200 where open > 0 {
            Thread.sleep(forTimeInterval: 0.05)
            open = Self.descriptors(under: root)
        }
        XCTAssertEqual(open, 0, "descriptors left open under \(root): \(Self.paths(under: root))")
    }
}
