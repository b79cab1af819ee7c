import Foundation

/// What a source file is, told by its first bytes alone: before libvips sniffs it (which needs the loaders
/// that might claim it) and without opening it as an image.
public enum SourceSignature {
    /// A JPEG's start-of-image marker followed by a marker's first byte (JFIF, EXIF or a bare frame alike).
    public static func isJPEG(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 3)).map { [UInt8]($0) == [0xFF, 0xD8, 0xFF] } ?? false
    }
}
