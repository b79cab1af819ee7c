import HTTPServer

/// Whether a stored IIIF tile file is whole, checked on every read, so that its write needs no fsync.
///
/// Why: the fsync of each new tile file was about a tenth of a first request's CPU (perf, 2026-12-02),
/// and a tile file can always be made again from the pyramid. Written to a temporary name and renamed
/// into place, a file is never seen half-written while the machine runs; after a power cut, a file
/// renamed with its data still in the page cache comes back empty or zero-filled (ext4's and XFS's
/// delayed allocation). A JPEG always starts with its SOI marker (FF D8) and ends with its EOI marker
/// (FF D9), so those cases fail the check in constant time; a tile that fails it is deleted and
/// rendered again. Only JPEG tiles are written unsynced: a WebP or AVIF file has no end marker.
enum StoredTileCheck {
    /// The formats whose tile files are written without fsync and checked on read.
    static func isChecked(_ format: IIIFFormat) -> Bool { format == .jpg }

    /// Whether `bytes` can be served as a stored tile of `format`.
    static func isWhole(_ bytes: SharedBytes, format: IIIFFormat) -> Bool {
        guard isChecked(format) else { return true }
        return bytes.withUnsafeBytes(isWholeJPEG)
    }

    static func isWholeJPEG(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let count = bytes.count
        return count >= 4 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[count - 2] == 0xFF && bytes[count - 1] == 0xD9
    }
}
