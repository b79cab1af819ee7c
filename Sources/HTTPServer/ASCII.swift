/// Case-insensitive handling of header names, which are ASCII. Foundation's and the
/// standard library's Unicode-aware lowercasing cost more than the rest of a tile request.
enum ASCII {
    static func lowercased(_ text: String) -> String {
        // Names are mostly lower-case already (lookups, HTTP/2-era clients): no copy for them. Checked over
        // contiguous bytes: `utf8.contains` walks String indices, about 500 instructions for `content-length`.
        var text = text
        guard text.withUTF8({ $0.contains { $0 &- 65 < 26 } }) else { return text }
        var utf8 = Array(text.utf8)
        var changed = false
        for index in utf8.indices where utf8[index] >= 65 && utf8[index] <= 90 {
            utf8[index] += 32
            changed = true
        }
        return changed ? String(decoding: utf8, as: UTF8.self) : text
    }

    /// A header name as libmicrohttpd hands it over, read and lower-cased in one pass: HTTP/1.1 clients send
    /// `Host` and `User-Agent`, and `lowercased(String(cString:))` made three copies of each (1k instructions a
    /// header). Invalid UTF-8 is repaired as `String(cString:)` repairs it.
    static func lowercased(cString: UnsafePointer<CChar>) -> String {
        let bytes = UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self)
        var length = 0
        while bytes[length] != 0 { length += 1 }
        return String(unsafeUninitializedCapacity: length) { buffer in
            for index in 0..<length {
                let byte = bytes[index]
                buffer[index] = byte &- 65 < 26 ? byte &+ 32 : byte
            }
            return length
        }
    }

    static func equalIgnoringCase(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        for (x, y) in zip(a.utf8, b.utf8) where x != y {
            let lowerX = x >= 65 && x <= 90 ? x + 32 : x
            let lowerY = y >= 65 && y <= 90 ? y + 32 : y
            if lowerX != lowerY { return false }
        }
        return true
    }

    /// Milliseconds with three decimals, without String(format:), which is slow on Linux.
    static func milliseconds(_ seconds: Double) -> String {
        timing(prefix: "", seconds: seconds)
    }

    /// `prefix` then the milliseconds with three decimals ("total;dur=0.052"), written digit by digit
    /// into one buffer: this runs on every response, and most results fit a small (inline) string.
    static func timing(prefix: StaticString, seconds: Double) -> String {
        let clamped = seconds.isFinite ? min(max(seconds, 0), 1e9) : 0  // no trap on a clock gone wrong
        var micros = Int((clamped * 1_000_000).rounded())
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: prefix.utf8CodeUnitCount + 24) { buffer in
            let end = buffer.count  // digits are written backwards from the end, the prefix before them
            var cursor = end
            var written = 0
            repeat {
                cursor -= 1
                buffer[cursor] = UInt8(ascii: "0") + UInt8(micros % 10)
                micros /= 10
                written += 1
                if written == 3 {
                    cursor -= 1
                    buffer[cursor] = UInt8(ascii: ".")
                }
            } while micros > 0 || written < 4
            let start = cursor - prefix.utf8CodeUnitCount
            for offset in 0..<prefix.utf8CodeUnitCount { buffer[start + offset] = prefix.utf8Start[offset] }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
        }
    }
}
