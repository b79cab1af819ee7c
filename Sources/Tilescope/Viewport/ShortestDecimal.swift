/// The shortest decimal that reads back as a double, for the doubles a viewport answer is full of: fractions
/// from 0.0001 up to 10^15 whose shortest form has at most 15 significant digits (`108.341248`, `0.052901`;
/// five in six of the answer's numbers). The text is exactly `description`'s; anything else is left to it.
///
/// Why it is exact: let K put the value's 15th significant digit at the units place (`|v| * 10^K < 10^15`,
/// 10^K an exact double). If the shortest decimal D has at most 15 digits, `D * 10^K` is a whole number within
/// `10^K * ulp(v) / 2 <= 10^15 * 2^-53 = 0.11` of `v * 10^K`, and the rounded product is off by at most 0.0625
/// more, so rounding the product gives exactly `D * 10^K` (and D is the only such decimal: two would be a whole
/// unit apart). Conversely the rounded product N is only trusted once `N / 10^K == v`: N and 10^K are exact
/// doubles, so that one IEEE division reads the decimal as `Double(String)` would (Clinger's fast path, as
/// `ViewportFields.shortDecimal`). Then D is N without its trailing zeros. Ties cannot arise: the midpoint
/// between two doubles in this range has far more than 15 significant digits.
///
/// About 200 instructions a number against about 650 through the standard library's general printer, which
/// stays the fallback for longer forms (`107.91803999999999`), tiny and huge values (callgrind, bench viewports).
enum ShortestDecimal {
    /// The room `write` needs at its target: it writes 16-byte words past the text (at most 22 bytes: a sign,
    /// `0.000` and 15 digits), which the caller's next writes overwrite or ignore.
    static let room = 40

    /// Writes `value`'s shortest form at `target` (room for `room` bytes) and returns its length, or returns
    /// 0 when `value` is outside the cases above (the bytes at `target` then mean nothing).
    @inline(__always)
    static func write(_ value: Double, to target: UnsafeMutablePointer<UInt8>) -> Int {
        let magnitude = value.magnitude
        guard magnitude >= 0.0001, magnitude < 1e15 else { return 0 }
        // The leading digit's place: floor(log10 |v|) is floor(e log10 2) or one more (1233 / 4096 ~ log10 2,
        // the exact floor for these exponents). From the bits: `exponent` is a call into the standard library.
        let exponent = Int(truncatingIfNeeded: magnitude.bitPattern >> 52) &- 1023
        var leading = (exponent &* 1233) >> 12
        if magnitude >= power(leading &+ 1) { leading &+= 1 }
        let scale = power(14 &- leading)  // 10^K: the 15th significant digit at the units place
        // Rounded to a whole number by adding and taking away 2^52 (exact below 2^52; `rounded` calls libm).
        let product = (magnitude * scale + 4_503_599_627_370_496) - 4_503_599_627_370_496
        guard product >= 1e14, product < 1e15, product / scale == magnitude else { return 0 }

        var digits = Digits()
        digits.write15(UInt64(product))
        var cursor = target
        if value < 0 {
            cursor.pointee = UInt8(ascii: "-")
            cursor += 1
        }
        let whole = leading &+ 1  // digits before the point: 15 of them in all, or `0.` and up to 3 zeros
        if whole > 0 {
            digits.copy(from: 0, to: cursor)
            cursor[whole] = UInt8(ascii: ".")
            digits.copy(from: whole, to: cursor + whole + 1)
            cursor += 16
        } else {
            UnsafeMutableRawPointer(cursor).storeBytes(of: zeroPointZeros, as: UInt64.self)
            cursor += 2 &- whole
            digits.copy(from: 0, to: cursor)
            cursor += 15
        }
        // The shortest form is the 15 digits without their trailing zeros; the point stays (a fraction).
        while cursor[-1] == UInt8(ascii: "0") { cursor -= 1 }
        guard cursor[-1] != UInt8(ascii: ".") else { return 0 }  // a whole number: the caller prints those
        return cursor - target
    }

    /// `0.000000` as a little-endian word.
    private static let zeroPointZeros: UInt64 = 0x3030_3030_3030_2E30

    /// 10^p for -5 <= p <= 22: exact from 10^0 up (the negative ones only place the leading digit, where an
    /// ulp off costs a fallback, never a wrong text). A literal, so the compiler lays it out statically.
    @inline(__always)
    private static func power(_ p: Int) -> Double {
        powers[p &+ 5]
    }

    private static let powers: [Double] = [
        1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
        1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    /// Fifteen decimal digits in a 32-byte block, so that 16 bytes can be copied from any digit on.
    private struct Digits {
        private var bytes: (SIMD16<UInt8>, SIMD16<UInt8>) = (.zero, .zero)

        /// `number` (below 10^15) as exactly 15 digits, two at a time from the last.
        @inline(__always)
        mutating func write15(_ number: UInt64) {
            var rest = number
            withUnsafeMutableBytes(of: &bytes) { block in
                let pairs = UnsafeRawPointer(ShortestDecimal.pairs.utf8Start)
                var index = 13
                while index > 0 {
                    let pair = Int(truncatingIfNeeded: rest % 100)
                    rest /= 100
                    block.storeBytes(of: pairs.loadUnaligned(fromByteOffset: pair &* 2, as: UInt16.self),
                                     toByteOffset: index, as: UInt16.self)
                    index &-= 2
                }
                block[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
            }
        }

        /// Copies 16 bytes from digit `index` on (0 <= index <= 15) to `target`.
        @inline(__always)
        func copy(from index: Int, to target: UnsafeMutablePointer<UInt8>) {
            withUnsafeBytes(of: bytes) { block in
                UnsafeMutableRawPointer(target).storeBytes(
                    of: block.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self), as: SIMD16<UInt8>.self)
            }
        }
    }

    /// "00" to "99".
    private static let pairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
}
