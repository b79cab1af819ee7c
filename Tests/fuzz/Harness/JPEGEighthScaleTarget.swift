import Foundation
import Imaging

/// The two-thread 1/8-scale decode of uploaded sources (`EighthScaleJPEG`, C over untrusted files). Any
/// bytes give no answer or an image; what two threads take (the split forced on small inputs), one thread
/// takes too, and the other way round, with the same pixels; and where libjpeg decodes the same bytes at 1/8 without an error or a
/// warning (`EighthScaleJPEG.libjpegReference`), the pixels are libjpeg's exactly.
enum JPEGEighthScaleTarget {
    /// The input as a file, which the decoder reads with pread.
    nonisolated(unsafe) static var file: Int32 = -1
    nonisolated(unsafe) static var started = false

    static func run(_ bytes: [UInt8]) {
        if !started {
            started = true
            try? Vips.start()
            // A temporary file, unlinked at once.
            var template = Array((NSTemporaryDirectory() + "/jpeg-eighth-XXXXXX").utf8CString)
            file = mkstemp(&template)
            if file >= 0 { unlink(String(cString: template)) }
        }
        guard file >= 0, ftruncate(file, 0) == 0 else { return }
        let written = bytes.withUnsafeBytes { pwrite(file, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else { return }
        let one = try? EighthScaleJPEG.decode(file: file, threads: 1)
        let two = try? EighthScaleJPEG.decode(file: file, threads: 2, parallelMinimumBytes: 16)
        // Where two threads cannot split the data, they decode it as one thread does; where they split it,
        // whatever one thread refuses (a bad code, a truncation, chroma out of libjpeg's range) is in one
        // of the halves, which refuse it too. So the verdicts agree both ways.
        FuzzCheck.require(two == nil || one != nil, "two threads took what one thread refused")
        FuzzCheck.require(one == nil || two != nil, "two threads refused what one thread took")
        guard let one else { return }
        let pixels = try? one.image.pixels()
        FuzzCheck.require(pixels != nil, "no pixels")
        if let two { FuzzCheck.require((try? two.image.pixels()) == pixels, "one thread and two differ") }
        guard let reference = EighthScaleJPEG.libjpegReference(bytes) else { return }
        FuzzCheck.require(reference.width == one.image.width && reference.height == one.image.height
                          && reference.bands == one.image.bands,
                          "libjpeg: \(reference.width)x\(reference.height)x\(reference.bands), this: \(one.image.width)x\(one.image.height)x\(one.image.bands)")
        FuzzCheck.require(reference.pixels == pixels, "not libjpeg's pixels")
    }
}
