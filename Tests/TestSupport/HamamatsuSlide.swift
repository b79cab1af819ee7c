import Foundation

/// Writes a Hamamatsu NDPI that OpenSlide 3.4.1 reads as `hamamatsu`: a little-endian TIFF of one directory per
/// level, each level one whole JPEG in a single strip (RowsPerStrip = height), with the private tags OpenSlide's
/// reader looks for: 65420 (the NDPI mark, in the first directory; it also makes OpenSlide read every next-IFD
/// offset as 8 bytes), 65421 SourceLens (> 0: a pyramid level) and 65424 the focal plane (0). Levels must come
/// largest first. Each JPEG has a restart marker every 32 MCUs of 8 x 8: OpenSlide cuts a level into tiles at its
/// restart markers, 256 x 8 here, so every level's size must be a multiple of 256 x 8. Without chroma subsampling:
/// with 4:2:0 (MCUs of 16 x 16, tiles one MCU high) OpenSlide 3.4.1 here fails every full-scale tile ("found
/// marker 0xd9 instead of RST0": libjpeg's fancy upsampling wants the next row of MCUs) and reads only the levels
/// it makes by libjpeg's scaling.
public enum HamamatsuSlide {
    /// `source` (a file libvips reads, its size a multiple of 256 << (levels - 1) by 8 << (levels - 1)) as an
    /// NDPI at `path` of `levels` levels, each the one before box-halved, `micronsPerPixel` wide at level 0.
    public static func write(source: String, to path: String, levels: Int, micronsPerPixel: Double) throws {
        let folder = (path as NSString).deletingLastPathComponent
        let width = try LeicaSlide.header("width", of: source), height = try LeicaSlide.header("height", of: source)
        guard width % (256 << (levels - 1)) == 0, height % (8 << (levels - 1)) == 0
        else { throw TestFailure("\(width) x \(height) cannot be halved \(levels - 1) times into 256 x 8 tiles") }
        var jpegs: [[UInt8]] = []
        for level in 0..<levels {
            let shrunk = folder + "/ndpi-level-\(level).v", jpeg = folder + "/ndpi-level-\(level).jpg"
            try AperioSlide.run("/usr/bin/vips", ["shrink", source, shrunk, "\(1 << level)", "\(1 << level)"])
            try AperioSlide.run("/usr/bin/vips", ["jpegsave", shrunk, jpeg, "--Q", "90", "--subsample-mode", "off",
                                                  "--restart-interval", "32", "--strip"])
            jpegs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: jpeg))))
            try? FileManager.default.removeItem(atPath: shrunk)
            try? FileManager.default.removeItem(atPath: jpeg)
        }
        var bytes: [UInt8] = [0x49, 0x49, 42, 0, 0, 0, 0, 0]
        var jpegOffsets: [Int] = []
        for jpeg in jpegs {
            jpegOffsets.append(bytes.count)
            bytes += jpeg
            if bytes.count % 2 == 1 { bytes.append(0) }
        }
        // Pixels a centimetre, as a rational of the directory's own (after its next-IFD offset).
        let perCentimetre = Int((10_000 / micronsPerPixel).rounded())
        var previousNext = 4, previousNextSize = 4
        for (level, jpeg) in jpegs.enumerated() {
            let directory = bytes.count
            bytes.replaceSubrange(previousNext..<(previousNext + previousNextSize), with: le(directory, previousNextSize))
            let (w, h) = (width >> level, height >> level)
            let entryCount = 15
            let rational = directory + 2 + 12 * entryCount + 8
            // Tag, type (3 SHORT, 4 LONG, 5 RATIONAL, 8 SSHORT, 9 SLONG, 11 FLOAT), count, value or offset.
            let entries: [(Int, Int, Int, Int)] = [
                (256, 4, 1, w), (257, 4, 1, h), (258, 3, 1, 8), (259, 3, 1, 7), (262, 3, 1, 6),
                (273, 4, 1, jpegOffsets[level]), (277, 3, 1, 3), (278, 4, 1, h), (279, 4, 1, jpeg.count),
                (282, 5, 1, rational), (283, 5, 1, rational), (296, 3, 1, 3),
                (65420, 4, 1, 1), (65421, 11, 1, Int(Float(20).bitPattern)), (65424, 8, 1, 0),
            ]
            precondition(entries.count == entryCount)
            bytes += le(entryCount, 2)
            for (tag, type, count, value) in entries { bytes += le(tag, 2) + le(type, 2) + le(count, 4) + le(value, 4) }
            previousNext = bytes.count
            previousNextSize = 8  // NDPI's next-IFD offsets are 8 bytes after the first directory's mark
            bytes += le(0, 8)
            bytes += le(perCentimetre, 4) + le(1, 4)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    private static func le(_ value: Int, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
