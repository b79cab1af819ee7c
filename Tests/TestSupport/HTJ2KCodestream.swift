import Foundation

/// A High-Throughput JPEG 2000 codestream (JPEG 2000 Part 15, HTJ2K) with resolution levels, for the tests of
/// sources served from their own levels. Debian 12's OpenJPEG 2.5 decodes HTJ2K (libvips's jp2kload reads it so)
/// but cannot encode it; the encoder here is OpenJPH inside the PyPI package `imagecodecs`, which
/// `scripts/install-deps.sh --test` installs, pinned, into the repository's `.venv`.
public enum HTJ2KCodestream {
    /// Writes `raw` (`width` x `height` 8-bit RGB, interleaved) to `path` as a raw `.j2c` codestream of
    /// `decompositions` wavelet decompositions (so one more resolution level) in 256 x 256 tiles, reversible
    /// (the 5/3 wavelet, lossless). (OpenJPH's `resolutions` counts decompositions: 5 gave six levels.)
    public static func write(raw: String, width: Int, height: Int, decompositions: Int, to path: String) throws {
        let script = """
            import sys, numpy, imagecodecs
            raw, width, height, decompositions, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
            pixels = numpy.fromfile(raw, dtype=numpy.uint8).reshape(height, width, 3)
            data = imagecodecs.htj2k_encode(pixels, resolutions=decompositions, tile=(256, 256), reversible=True)
            open(out, 'wb').write(data)
            """
        try AperioSlide.run(python, ["-c", script, raw, "\(width)", "\(height)", "\(decompositions)", path])
    }

    /// True when the codestream at `path` declares Part 15's block coder: a CAP marker (0xFF50) in its main
    /// header, before the first tile-part (SOT, 0xFF90).
    public static func declaresHighThroughput(_ path: String) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var index = 2
        while index + 4 <= bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1]
            if marker == 0x50 { return true }
            if marker == 0x90 { return false }
            index += 2 + (Int(bytes[index + 2]) << 8 | Int(bytes[index + 3]))
        }
        return false
    }

    private static var python: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/.venv/bin/python"
    }
}
