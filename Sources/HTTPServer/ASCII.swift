/// Case-insensitive handling of header names, which are ASCII. Foundation's and the
/// standard library's Unicode-aware lowercasing cost more than the rest of a tile request.
enum ASCII {
    static func lowercased(_ text: String) -> String {
        var utf8 = Array(text.utf8)
        var changed = false
        for index in utf8.indices where utf8[index] >= 65 && utf8[index] <= 90 {
            utf8[index] += 32
            changed = true
        }
        return changed ? String(decoding: utf8, as: UTF8.self) : text
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
        let micros = Int((seconds * 1_000_000).rounded())
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
