import SeededRandom
import Foundation
import Testing
@testable import Tilescope

/// The short-fraction printer: `description`'s text whenever it answers, and an answer for every value its
/// rule covers (a fraction from 0.0001 to 10^15 whose shortest form has at most 15 significant digits).
@Suite struct ShortestDecimalTests {
    /// The printer's text, or nil where it leaves the value to the standard library.
    static func printed(_ value: Double) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: ShortestDecimal.room) { buffer in
            let length = ShortestDecimal.write(value, to: buffer.baseAddress!)
            return length == 0 ? nil : String(decoding: buffer[..<length], as: UTF8.self)
        }
    }

    /// Whether the rule covers `value`, read off `description` itself.
    static func covered(_ value: Double) -> Bool {
        guard value.isFinite, value != value.rounded(), value.magnitude >= 0.0001, value.magnitude < 1e15 else {
            return false
        }
        let text = value.description
        guard !text.contains("e") else { return false }
        let significant = text.filter(\.isNumber).drop { $0 == "0" }
        return significant.count <= 15
    }

    /// Checks every value; returns how many the printer answered.
    @discardableResult
    static func check(_ values: [Double], sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var wrong: [String] = [], missed: [Double] = [], answered = 0
        for value in values {
            let text = printed(value)
            if let text {
                answered += 1
                if text != value.description { wrong.append("\(value.description) printed as \(text)") }
            } else if covered(value) {
                missed.append(value)
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))", sourceLocation: sourceLocation)
        #expect(missed.isEmpty, "\(missed.prefix(5))", sourceLocation: sourceLocation)
        return answered
    }

    @Test func examples() {
        #expect(Self.printed(108.341248) == "108.341248")
        #expect(Self.printed(0.052901) == "0.052901")
        #expect(Self.printed(-206.635008) == "-206.635008")
        #expect(Self.printed(0.0001) == "0.0001")
        #expect(Self.printed(0.000123456789012345) == "0.000123456789012345")
        #expect(Self.printed(-0.000123456789012345) == "-0.000123456789012345")
        #expect(Self.printed(99_999_999_999_999.9) == "99999999999999.9")
        #expect(Self.printed(0.1 + 0.2) == nil)  // 0.30000000000000004: 17 digits
        #expect(Self.printed(107.91803999999999) == nil)
        #expect(Self.printed(1e-5) == nil)  // description writes 1e-05
        #expect(Self.printed(1e15 + 0.5) == nil)
        #expect(Self.printed(2048) == nil)  // whole numbers are the caller's
        #expect(Self.printed(.nan) == nil)
        #expect(Self.printed(.infinity) == nil)
        #expect(Self.printed(-.infinity) == nil)
    }

    /// Decimals of 1 to 15 digits at every scale the rule covers: every one answered, as `description`.
    @Test func shortDecimalsAreAllAnswered() {
        var random = SeededGenerator(seed: 15)
        var values: [Double] = []
        for _ in 0..<60_000 {
            let digits = Int.random(in: 1...15, using: &random)
            let mantissa = UInt64.random(in: 1..<(0..<digits).reduce(UInt64(1)) { p, _ in p * 10 }, using: &random)
            // A point inside or before the digits, up to three zeros after it: mostly 0.0001 <= value < 10^14.
            let value = Double("\(mantissa)e\(-Int.random(in: 1...(digits + 3), using: &random))")!
            guard value != value.rounded() else { continue }
            values.append(random.chance(0.5) ? value : -value)
        }
        let covered = values.filter(Self.covered)  // not the few whose mantissa came out shorter, below 0.0001
        #expect(covered.count > 55_000)
        #expect(Self.check(values) == covered.count)
    }

    /// What the answer prints: products and differences of short decimals (many 16 or 17 digits long).
    @Test func frameArithmeticPrintsAsDescription() {
        var random = SeededGenerator(seed: 2026)
        var values: [Double] = []
        for _ in 0..<60_000 {
            let zoomScale = Double(Int.random(in: 1..<1_000_000, using: &random)) / 1_000_000
            let offset = Double(Int.random(in: -100_000...100_000, using: &random)) / 10
            let column = Double(Int.random(in: 0..<300, using: &random))
            values.append(column * 254 * zoomScale - offset)
            values.append(Double(Int.random(in: 1...16384, using: &random)) * zoomScale)
            values.append(zoomScale * random.logUniform(1e-3...1e6))
        }
        let answered = Self.check(values)
        #expect(answered > 60_000)
    }

    /// Around every power of ten and the rule's ends, a few doubles either side, and random bit patterns.
    @Test func edgesAndRandomBitsPrintAsDescription() {
        var values: [Double] = []
        for power in -6...16 {
            for base in [1.0, 1.5, 2.5, 9.5, 9.999999999999999, 1.000000000000001] {
                var up = base * Double("1e\(power)")!, down = up
                for _ in 0..<40 {
                    values += [up, down, -up]
                    up = up.nextUp
                    down = down.nextDown
                }
            }
        }
        var random = SeededGenerator(seed: 7)
        for _ in 0..<100_000 {
            let bits = UInt64.random(in: 0x3F1A_36E2_EB1C_432C...0x430C_6BF5_2634_0000, using: &random)  // 1e-4...1e15
            values.append(Double(bitPattern: bits))
        }
        Self.check(values)
    }
}
