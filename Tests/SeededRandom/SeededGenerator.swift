import Foundation

/// SplitMix64: a tiny, fast, seedable generator so that every property-test run sees the same cases
/// and a failure names a seed that reproduces it. The one generator every test target shares.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Log-uniform in `range`: small and large values are equally likely, which is where the edge cases are.
    public mutating func logUniform(_ range: ClosedRange<Double>) -> Double {
        let exponent = Double.random(in: log2(range.lowerBound)...log2(range.upperBound), using: &self)
        return min(max(exp2(exponent), range.lowerBound), range.upperBound)
    }

    public mutating func logUniformInt(_ range: ClosedRange<Int>) -> Int {
        Int(logUniform(Double(range.lowerBound)...Double(range.upperBound) + 0.999).rounded(.down))
    }

    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }
}
