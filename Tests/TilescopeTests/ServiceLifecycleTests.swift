import Foundation
import Testing
import TestSupport
@testable import Tilescope

/// What a service starts, its stop ends: threads and open descriptors do not grow over 50 starts and
/// stops in one process (each with a request served, a rescan run and a pyramid built).
@Suite(.serialized) struct ServiceLifecycleTests {
    static func count(_ folder: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? -1
    }

    /// Threads and descriptors once those of a stopped service had a moment to wind down
    /// (build threads end on their own after `stop` wakes them).
    static func settled(_ previous: (threads: Int, descriptors: Int)?) -> (threads: Int, descriptors: Int) {
        var current = (threads: count("/proc/self/task"), descriptors: count("/proc/self/fd"))
        for _ in 0..<100 {
            guard let previous, current.threads > previous.threads || current.descriptors > previous.descriptors else { break }
            Thread.sleep(forTimeInterval: 0.05)
            current = (count("/proc/self/task"), count("/proc/self/fd"))
        }
        return current
    }

    @Test func fiftyStartsAndStopsLeaveNoThreadOrDescriptorBehind() throws {
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
            #expect(try RawHTTP.get(service.server.port, "/healthz").status == 200)
            service.stop()
        }
        // The first cycles create what lives for the process (libvips's threads, Dispatch's pool).
        for index in 0..<5 { try cycle(index) }
        let before = Self.settled(nil)
        for index in 5..<50 { try cycle(index) }
        let after = Self.settled(before)
        #expect(after.threads <= before.threads, "threads \(before.threads) -> \(after.threads)")
        #expect(after.descriptors <= before.descriptors, "descriptors \(before.descriptors) -> \(after.descriptors)")
    }
}
