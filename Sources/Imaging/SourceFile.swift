import Foundation

/// Bytes of a source at any offset, from any thread: what a TIFF's directories and its stored tiles are read
/// through. A local file (`SourceFile(path:)`), or an object in a bucket read by ranged requests, which the
/// server provides (its cache of fetched ranges and its store client are not this module's).
public protocol ByteRanges: AnyObject, Sendable {
    /// The whole length: reads end there.
    var size: UInt64 { get }
    /// Copies at most `count` bytes from `offset` into `buffer`; returns how many (0 at or past the end).
    func read(into buffer: UnsafeMutableRawPointer, at offset: UInt64, count: Int) throws -> Int
}

/// A source held open for reading its bytes at any offset, from any thread: a local file opened once (`pread`), so
/// that every read is of the file that was probed even if another is renamed over its name meanwhile; or the
/// ranges of an object (`ByteRanges`), read without the whole of it ever being copied.
public final class SourceFile: Sendable {
    private enum Backing: Sendable {
        case descriptor(Int32)
        case ranges(any ByteRanges)
    }

    private let backing: Backing

    init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TIFFLayoutError("cannot open \(path): \(String(cString: strerror(errno)))") }
        backing = .descriptor(descriptor)
    }

    public init(ranges: any ByteRanges) {
        backing = .ranges(ranges)
    }

    deinit { if case let .descriptor(descriptor) = backing { close(descriptor) } }

    /// The ranges this source is read through, nil for a local file.
    var ranges: (any ByteRanges)? {
        if case let .ranges(ranges) = backing { return ranges }
        return nil
    }

    /// At most `count` bytes from `offset` (fewer at the end of the source).
    func prefix(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count >= 0, offset < UInt64(Int64.max) - UInt64(count) else { throw TIFFLayoutError("an offset out of range") }
        var out = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let step = try out.withUnsafeMutableBytes { buffer -> Int in
                let start = buffer.baseAddress!.advanced(by: got)
                switch backing {
                case let .descriptor(descriptor):
                    let read = pread(descriptor, start, count - got, off_t(offset + UInt64(got)))
                    guard read >= 0 else { throw TIFFLayoutError("cannot read the source: \(String(cString: strerror(errno)))") }
                    return read
                case let .ranges(ranges):
                    return try ranges.read(into: start, at: offset + UInt64(got), count: count - got)
                }
            }
            guard step > 0 else { break }
            got += step
        }
        return Array(out.prefix(got))
    }

    /// Exactly `count` bytes from `offset`, or an error for a source cut short.
    func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        let out = try prefix(at: offset, count: count)
        guard out.count == count else { throw TIFFLayoutError("the file is cut short at offset \(offset)") }
        return out
    }

    /// Value `index` of `values` (an unsigned integer of 1 to 8 bytes).
    func integer(_ values: TIFFValues, _ index: Int) throws -> UInt64 {
        guard index >= 0, index < values.count else { throw TIFFLayoutError("value \(index) of \(values.count)") }
        let (position, overflow) = values.offset.addingReportingOverflow(UInt64(index * values.size))
        guard !overflow else { throw TIFFLayoutError("an offset out of range") }
        let bytes = try self.bytes(at: position, count: values.size)
        let ordered = values.littleEndian ? bytes.reversed() : bytes
        return ordered.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
