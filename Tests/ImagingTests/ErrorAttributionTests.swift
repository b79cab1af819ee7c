import Foundation
import TestSupport
import Testing
@testable import Imaging

/// A failed build's reason holds only the lines of its own failing operation, whatever the
/// process built before it.
@Suite(.serialized) struct ErrorAttributionTests {
    /// The first third of a JPEG: its header reads, its pixels end early.
    static func writeTruncatedJPEG(to path: String) throws {
        let jpeg = try VImage.fromPixels(TestImages.pixels(width: 900, height: 700), width: 900, height: 700, bands: 3)
            .jpegData(quality: 90)
        try Data(jpeg.prefix(jpeg.count / 3)).write(to: URL(fileURLWithPath: path))
    }

    static func failure(building source: String, in folder: String) -> String? {
        let out = folder + "/out-" + UUID().uuidString.prefix(6)
        try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        do {
            _ = try PyramidBuilder().build(source: source, into: out)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aTruncatedJPEGAfterAnAlphaTIFFGetsOnlyItsOwnLines() throws {
        try Vips.start()
        let folder = try TestImages.folder("attribution-alpha-then-trunc")
        let alone = folder + "/alone.jpg", trunc = folder + "/trunc.jpg", alpha = folder + "/alpha.tif"
        try Self.writeTruncatedJPEG(to: alone)
        try Self.writeTruncatedJPEG(to: trunc)
        try TestImages.writeAlphaTIFF(width: 700, height: 500, to: alpha)
        // The same failure as alone, with its own file's name where the other has its name. Suites
        // running beside this one may fail at the same moment and lend either build a line that names
        // no file (attributed by elimination; see VipsErrorLedger): a stale line of alpha.tif's would
        // be there at every attempt, such a loan hardly ever twice.
        var seen: [String] = []
        for _ in 0..<3 {
            let aloneReason = try #require(Self.failure(building: alone, in: folder))
            #expect(Self.failure(building: alpha, in: folder) == nil)
            let reason = try #require(Self.failure(building: trunc, in: folder))
            #expect(!reason.contains("bad seek"), "\(reason)")
            if reason == aloneReason.replacingOccurrences(of: alone, with: trunc) { return }
            seen.append("alone: \(aloneReason)\nafter alpha.tif: \(reason)")
        }
        Issue.record("never the same failure as alone:\n\(seen.joined(separator: "\n--\n"))")
    }

    /// Found in a gallery: a truncated JPEG failed with "source: bad seek to 348" before its own
    /// "VipsJpeg: Premature end of input file". The first line was another thread's: decoding a
    /// small AVIF from memory succeeds, but one of the loaders libvips tries first leaves that line.
    @Test func linesOfSuccessfulDecodesOnOtherThreadsStayOut() throws {
        try Vips.start()
        let folder = try TestImages.folder("attribution-concurrent-decodes")
        let trunc = folder + "/trunc.jpg"
        try Self.writeTruncatedJPEG(to: trunc)
        let alone = try #require(Self.failure(building: trunc, in: folder))
        let tiny = try VImage.fromPixels(TestImages.pixels(width: 2, height: 2), width: 2, height: 2, bands: 3).encoded(as: .avif)
        _ = try VImage.decoding(tiny)  // what such a decode leaves, outside any build
        let done = Flag()
        let decoder = Thread {
            while !done.isSet { _ = try? VImage.decoding(tiny) }
        }
        decoder.start()
        defer { done.set() }
        #expect(!alone.contains("bad seek"), "\(alone)")
        for _ in 0..<20 {
            let reason = try #require(Self.failure(building: trunc, in: folder))
            // None of the decodes' lines. (Not `reason == alone`: suites running beside this one in the
            // test process fail operations of their own, whose lines that name no file at all can only
            // be attributed by elimination; see VipsErrorLedger. Such as libtiff's "source input: Not a
            // TIFF" and "vips__tiff_openin_source: ...": so the decodes' lines are told by how they begin.)
            let decodes = reason.split(separator: "\n").filter { VipsErrorLedger.isNameless(String($0)) }
            #expect(decodes.isEmpty && !reason.contains("bad seek"), "alone: \(alone)\nnow: \(reason)")
        }
    }

    /// A failed decode in memory takes its own lines, not what earlier successful decodes left.
    @Test func aFailedDecodeInMemoryGetsNoStaleLines() throws {
        try Vips.start()
        let tiny = try VImage.fromPixels(TestImages.pixels(width: 2, height: 2), width: 2, height: 2, bands: 3).encoded(as: .avif)
        for _ in 0..<3 { _ = try VImage.decoding(tiny) }
        let jpeg = try VImage.fromPixels(TestImages.pixels(width: 64, height: 64), width: 64, height: 64, bands: 3).jpegData()
        do {
            _ = try VImage.decoding(Array(jpeg.prefix(jpeg.count / 2)))
            Issue.record("half a JPEG decoded")
        } catch {
            #expect(!"\(error)".contains("bad seek"), "\(error)")
        }
    }
}

private final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
