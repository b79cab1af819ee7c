import Foundation  // memcpy, malloc
import HTTPServer

/// A small JSON writer for the viewport answer: keys in the documented order, numbers in their shortest
/// exact form (whole numbers without `.0`), written straight into one growing byte buffer.
///
/// The viewport answer is on the hot path (the target is at most twice the cost of a static tile) and a
/// retina screen needs a hundred tiles or more. Foundation's JSONEncoder neither keeps key order nor runs
/// cheaply, and even `[UInt8].append` costs a uniqueness check per call; this writes through a pointer with
/// one capacity check per piece, and hands its buffer to the response without copying it (`buffer()`).
struct ViewportJSON: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    private var needsComma = false

    // malloc, not `allocate`: the finished buffer goes to libmicrohttpd, which frees it with `free`.
    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        guard let memory = malloc(self.capacity) else { fatalError("out of memory for \(self.capacity) bytes") }
        base = memory.assumingMemoryBound(to: UInt8.self)
    }

    deinit {
        free(base)
    }

    /// The finished answer as a response body, without a copy.
    consuming func buffer() -> MallocBuffer {
        let buffer = MallocBuffer(taking: UnsafeMutableRawPointer(base), count: count)
        discard self
        return buffer
    }

    /// How many bytes are written so far.
    var length: Int { count }

    /// The bytes written so far, in place: valid only inside `body`, and only until the next write.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The bytes written so far.
    var bytes: [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            memcpy(buffer.baseAddress!, base, count)
            initialized = count
        }
    }

    // MARK: structure

    mutating func beginObject(_ key: StaticString) {
        self.key(key)
        byte(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func beginObject() {
        reserve(2)
        if needsComma { unchecked(UInt8(ascii: ",")) }
        unchecked(UInt8(ascii: "{"))
        needsComma = false
    }

    mutating func endObject() {
        byte(UInt8(ascii: "}"))
        needsComma = true
    }

    mutating func beginArray(_ key: StaticString) {
        self.key(key)
        byte(UInt8(ascii: "["))
        needsComma = false
    }

    mutating func endArray() {
        byte(UInt8(ascii: "]"))
        needsComma = true
    }

    // MARK: fields

    mutating func field(_ key: StaticString, _ value: String) {
        self.key(key)
        appendString(value)
        needsComma = true
    }

    mutating func field(_ key: StaticString, _ value: Double) {
        self.key(key)
        appendNumber(value)
        needsComma = true
    }

    /// `"key":"{head}{id}{middle}{version}"`: one of an image's URLs (`PyramidURLs`) written in place, its id
    /// and version percent-encoded, so no escaping pass is needed and no URL string is made.
    mutating func field(_ key: StaticString, url layout: PyramidURLs.Layout, _ urls: PyramidURLs) {
        self.key(key)
        byte(UInt8(ascii: "\""))
        if !urls.mount.isEmpty { appendRaw(Array(urls.mount.utf8)) }
        appendRaw(layout.head)
        appendPercentEncoded(urls.imageID)
        appendRaw(layout.middle)
        appendPercentEncoded(urls.version)
        byte(UInt8(ascii: "\""))
        needsComma = true
    }

    mutating func field(_ key: StaticString, _ value: Int?) {
        self.key(key)
        if let value { appendInt(value) } else { appendRaw("null") }
        needsComma = true
    }

    // MARK: pieces

    mutating func appendRaw(_ text: StaticString) {
        // withUTF8Buffer, not utf8Start: a one-character literal is stored as a scalar, without a pointer.
        text.withUTF8Buffer { utf8 in
            reserve(utf8.count)
            memcpy(base + count, utf8.baseAddress!, utf8.count)
            count += utf8.count
        }
    }

    mutating func appendRaw(_ chunk: [UInt8]) {
        reserve(chunk.count)
        _ = chunk.withUnsafeBufferPointer { memcpy(base + count, $0.baseAddress!, $0.count) }
        count += chunk.count
    }

    /// `text` with everything but `A-Z a-z 0-9 - . _ ~` percent-encoded (`PyramidURLs`' rule), copied whole
    /// when nothing needs encoding, as ids and versions usually do not.
    mutating func appendPercentEncoded(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            if utf8.allSatisfy(PyramidURLs.isUnreserved) {
                reserve(utf8.count)
                if let start = utf8.baseAddress { memcpy(base + count, start, utf8.count) }
                count += utf8.count
                return
            }
            reserve(utf8.count * 3)
            for byte in utf8 {
                if PyramidURLs.isUnreserved(byte) {
                    unchecked(byte)
                } else {
                    unchecked(UInt8(ascii: "%"))
                    unchecked(PyramidURLs.hexDigit(byte >> 4))
                    unchecked(PyramidURLs.hexDigit(byte & 0xF))
                }
            }
        }
    }

    /// Appends a copy of bytes already written (`range` within `0..<length`).
    mutating func appendCopy(of range: Range<Int>) {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        reserve(range.count)  // first: growing moves the buffer the copy reads from
        memcpy(base + count, base + range.lowerBound, range.count)
        count += range.count
    }

    /// Makes room for `extra` more bytes, for a run of `appendUnchecked`.
    mutating func reserve(extra: Int) {
        reserve(extra)
    }

    /// Copies `length` bytes with no capacity check, 16 at a time, so it may read and write up to 15 bytes
    /// past them: only after `reserve(extra:)` made room for `length + 15` bytes, and only from a source
    /// that has 15 readable bytes after the piece. The bytes written past the piece are overwritten by the
    /// next piece or ignored (they are beyond `length`). The pieces are short (a number, a key), where
    /// two word copies beat calling `memcpy` and looping byte by byte.
    @inline(__always)
    mutating func appendUnchecked(_ source: UnsafeRawPointer, length: Int) {
        let target = UnsafeMutableRawPointer(base + count)
        var offset = 0
        while offset < length {  // one unaligned 16-byte load and store per step
            target.storeBytes(of: source.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt8>.self),
                              toByteOffset: offset, as: SIMD16<UInt8>.self)
            offset &+= 16
        }
        count &+= length
    }

    mutating func appendInt(_ value: Int) {
        reserve(20)  // a sign and at most 19 digits
        if value < 0 { unchecked(UInt8(ascii: "-")) }
        // Digits from the last one back: dividing by the constant 10 compiles to a multiplication, where
        // dividing by a running power of ten was a hardware division per digit.
        var rest = value.magnitude
        var length = 1
        var probe = rest
        while probe >= 10 {
            probe /= 10
            length += 1
        }
        var index = count + length
        repeat {
            index -= 1
            base[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        } while rest > 0
        count += length
    }

    /// Whole numbers below 2^53 as integers (`2048`, not `2048.0`); others in Swift's shortest round-trip form,
    /// which is valid JSON (`0.25`, `1e-05`). Non-finite values cannot be JSON: `null` (the request checks make
    /// them unreachable).
    mutating func appendNumber(_ value: Double) {
        guard value.isFinite else { return appendRaw("null") }
        // Whole below 2^53: the truncated value is the value (`rounded()` would call libm).
        if abs(value) < 9_007_199_254_740_992, Double(Int(value)) == value {
            appendInt(Int(value))
            return
        }
        // Most fractions in an answer are short: printed without the general printer (`ShortestDecimal`).
        // The rest: `write(to:)` prints what `description` does (a test holds them equal) but hands its stack
        // buffer to the stream, where `description` builds a String, on the heap when longer than 15 bytes,
        // as most frame coordinates are; that String was a third of the cost of a number.
        reserve(max(NumberText.room, ShortestDecimal.room))
        let short = ShortestDecimal.write(value, to: base + count)
        if short > 0 {
            count += short
            return
        }
        var text = NumberText(target: base + count)
        value.write(to: &text)
        if text.length <= NumberText.room {
            count += text.length
        } else {  // not reachable (at most 24 bytes), but never write past the room made
            var fallback = value.description
            fallback.withUTF8 { utf8 in
                reserve(utf8.count)
                memcpy(base + count, utf8.baseAddress!, utf8.count)
                count += utf8.count
            }
        }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    mutating func appendString(_ text: String) {
        var text = text
        // The usual case, an id or a word with nothing to escape: one copy, not a loop over every byte.
        let copied = text.withUTF8 { utf8 in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                return false
            }
            reserve(utf8.count + 2)
            unchecked(UInt8(ascii: "\""))
            if let start = utf8.baseAddress { memcpy(base + count, start, utf8.count) }
            count += utf8.count
            unchecked(UInt8(ascii: "\""))
            return true
        }
        if copied { return }
        let utf8 = text.utf8
        reserve(utf8.count * 6 + 2)  // the worst case: every byte a \u00XX escape
        unchecked(UInt8(ascii: "\""))
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                unchecked(UInt8(ascii: "\\"))
                unchecked(byte)
            case 0..<0x20:
                for piece in [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                              Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 0xF)]] {
                    unchecked(piece)
                }
            default:
                unchecked(byte)
            }
        }
        unchecked(UInt8(ascii: "\""))
    }

    private mutating func key(_ key: StaticString) {
        reserve(2)
        if needsComma { unchecked(UInt8(ascii: ",")) }
        unchecked(UInt8(ascii: "\""))
        appendRaw(key)
        reserve(2)
        unchecked(UInt8(ascii: "\""))
        unchecked(UInt8(ascii: ":"))
    }

    @inline(__always)
    private mutating func byte(_ value: UInt8) {
        reserve(1)
        unchecked(value)
    }

    /// Only after `reserve` made room.
    @inline(__always)
    private mutating func unchecked(_ value: UInt8) {
        base[count] = value
        count += 1
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toFit: extra) }
    }

    /// Kept out of line so that `reserve` inlines to one comparison.
    @inline(never)
    private mutating func grow(toFit extra: Int) {
        let grown = max(capacity * 2, count + extra)
        guard let bigger = realloc(base, grown) else { fatalError("out of memory for \(grown) bytes") }
        base = bigger.assumingMemoryBound(to: UInt8.self)
        capacity = grown
    }

    /// `value` as `ViewportJSON` writes it, for messages and tests.
    static func number(_ value: Double) -> String {
        var writer = ViewportJSON(capacity: 32)
        writer.appendNumber(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// Receives a number's text straight into the writer's buffer: the stream `Double.write(to:)` prints to.
private struct NumberText: TextOutputStream {
    /// The longest shortest-form double is 24 bytes (`-2.2250738585072014e-308`).
    static let room = 32
    let target: UnsafeMutablePointer<UInt8>
    /// Bytes received; past `room` nothing more is written and the caller falls back.
    var length = 0

    mutating func write(_ string: String) {
        var string = string
        string.withUTF8 { append($0) }
    }

    /// The standard library's ASCII fast path for numbers: the digits without a String around them.
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) {
        append(buffer)
    }

    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        if length + bytes.count <= Self.room, let start = bytes.baseAddress {
            memcpy(target + length, start, bytes.count)
        }
        length += bytes.count
    }
}
