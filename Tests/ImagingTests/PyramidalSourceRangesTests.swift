import Foundation
import ScrollGeometry
import Testing
import TestSupport
@testable import Imaging

/// A pyramidal TIFF read only through `ByteRanges` (as a bucket object is): the probe finds the levels a probe of
/// the file finds, every read gives the same pixels and every stored tile the same bytes, and libvips, reading a
/// level through a ranged source, asks only for the parts it needs. The ranges here are a local file's, counted.
@Suite struct PyramidalSourceRangesTests {
    /// A file read by `pread`, counting the bytes asked (a store's GETs would be these), and, as a bucket's blocks
    /// do, answering no read past the end of the 4 KiB block it starts in: callers must ask again for the rest.
    final class CountedFile: ByteRanges, @unchecked Sendable {
        let descriptor: Int32
        let size: UInt64
        private let lock = NSLock()
        private var asked = 0
        init(_ path: String) throws {
            descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
            size = UInt64(lseek(descriptor, 0, SEEK_END))
        }
        deinit { close(descriptor) }
        var bytesAsked: Int { lock.withLock { asked } }
        func read(into buffer: UnsafeMutableRawPointer, at offset: UInt64, count: Int) throws -> Int {
            let blockEnd = (offset / 4096 + 1) * 4096
            let got = pread(descriptor, buffer, min(count, Int(blockEnd - offset)), off_t(offset))
            guard got >= 0 else { throw TestFailure("pread failed") }
            lock.withLock { asked += got }
            return got
        }
    }

    final class FailingRanges: ByteRanges, @unchecked Sendable {
        struct Gone: Error {}
        let size: UInt64 = 1 << 20
        func read(into buffer: UnsafeMutableRawPointer, at offset: UInt64, count: Int) throws -> Int { throw Gone() }
    }

    @Test(arguments: ["pages", "subIFDs", "bigTIFF", "slide"])
    func aPyramidReadByRangesIsTheFileReadWhole(_ name: String) throws {
        let files = try PyramidalSourceTests.made.get()
        let file = [("pages", files.pages), ("subIFDs", files.subIFDs), ("bigTIFF", files.bigTIFF),
                    ("slide", files.slide)].first { $0.0 == name }!.1
        let ranges = try CountedFile(file)
        let ranged = try #require(try PyramidalSource.probe(ranges: ranges, name: name))
        let probedBytes = ranges.bytesAsked
        #expect(probedBytes < Int(ranges.size) / 10, "\(name): the probe read \(probedBytes) of \(ranges.size) bytes")
        let whole = try #require(try PyramidalSource.probe(path: file))
        // A slide probed by its file is OpenSlide's; by ranges it is its TIFF pages (the same levels).
        #expect(PyramidalSourceTests.sizes(ranged) == PyramidalSourceTests.sizes(whole), "\(name)")
        #expect(ranged.format == (whole.format == .openslide ? .tiffPages : whole.format))
        // The coarsest level's whole picture: a small part of the file.
        let before = ranges.bytesAsked
        let small = PixelSize(width: 187, height: 125)
        let everything = PixelRect(x: 0, y: 0, width: ranged.width, height: ranged.height)
        let thumbnail = try ranged.read(everything, size: small).pixels()
        if name != "slide" {  // OpenSlide lays its own background: compared as pages are, below, for the others
            #expect(try thumbnail == whole.read(everything, size: small).pixels(), "\(name)")
        }
        #expect(ranges.bytesAsked - before < Int(ranges.size) / 4, "\(name): a thumbnail read \(ranges.bytesAsked - before) bytes")
        for (region, size, _) in PyramidalSourceTests.cases where name != "slide" {
            #expect(try ranged.read(region, size: size).pixels() == whole.read(region, size: size).pixels(), "\(name) \(region)")
        }
        let tile = PixelSize(width: 256, height: 256)
        for (index, _) in ranged.levels.enumerated() {
            let side = 256 << index
            let region = PixelRect(x: side, y: 0, width: side, height: side)
            guard region.x + region.width <= ranged.width else { continue }
            let stored = try #require(try ranged.storedJPEG(region, size: tile), "\(name) level \(index)")
            #expect(stored == (try whole.storedJPEG(region, size: tile)), "\(name) level \(index)")
        }
    }

    /// Reads on many threads at once through one ranged source (its levels opened by the racing threads, each level
    /// one libvips source whose position the reads share) give the pixels of the file's reads.
    @Test func readsByRangesFromManyThreadsGiveTheSamePixels() throws {
        let file = try PyramidalSourceTests.made.get().pages
        let whole = try #require(try PyramidalSource.probe(path: file))
        let cases = PyramidalSourceTests.cases
        let expected = try cases.map { try whole.read($0.region, size: $0.size).pixels() }
        let shared = try #require(try PyramidalSource.probe(ranges: try CountedFile(file), name: "pages"))
        let results = PyramidalSourceTests.Results()
        DispatchQueue.concurrentPerform(iterations: 4 * cases.count) { iteration in
            let (region, size, _) = cases[iteration % cases.count]
            results.store(iteration, Result { try shared.read(region, size: size).pixels() })
        }
        for iteration in 0..<(4 * cases.count) {
            let got = try #require(try results.value(iteration)?.get())
            #expect(got == expected[iteration % cases.count], "read \(iteration)")
        }
    }

    @Test func rangesThatFailAreTheProbesError() throws {
        #expect(throws: FailingRanges.Gone.self) { try PyramidalSource.probe(ranges: FailingRanges(), name: "gone") }
    }
}
