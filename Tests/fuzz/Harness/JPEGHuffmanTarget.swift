import Imaging

/// The lossless Huffman re-encoding of stored tiles (`OptimizedJPEG`, C over libjpeg-turbo's coefficient
/// API): it reads tile files from disk, which a full disk or a bad sector can damage. Any bytes give either an
/// error or a JPEG no larger than the input that is itself a whole sequential JPEG (re-encoding it again works
/// and gains nothing more).
enum JPEGHuffmanTarget {
    static func run(_ bytes: [UInt8]) {
        guard let optimized = try? OptimizedJPEG.bytes(bytes) else { return }
        FuzzCheck.require(optimized.count <= bytes.count, "\(optimized.count) bytes from \(bytes.count)")
        FuzzCheck.require(optimized.starts(with: [0xFF, 0xD8]), "the output does not start with SOI")
        guard optimized != bytes else { return }
        let again = try? OptimizedJPEG.bytes(optimized)
        FuzzCheck.require(again != nil, "the re-encoded JPEG (\(optimized.count) bytes) cannot be read again")
    }
}
