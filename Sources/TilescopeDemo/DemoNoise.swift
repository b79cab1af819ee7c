/// Deterministic pseudo-random numbers and smooth noise, so the demo images come out
/// identical on every machine and every run.
enum DemoNoise {
    /// A well-mixed 64-bit hash of two integers and a seed (SplitMix64 finaliser).
    static func hash(_ a: Int, _ b: Int = 0, seed: Int = 0) -> UInt64 {
        var z = UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15
        z ^= UInt64(bitPattern: Int64(b)) &* 0xC2B2_AE3D_27D4_EB4F
        z ^= UInt64(bitPattern: Int64(seed)) &* 0x1656_67B1_9E37_79F9
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in 0..<1 for the given integers.
    static func unit(_ a: Int, _ b: Int = 0, seed: Int = 0) -> Double {
        Double(hash(a, b, seed: seed) >> 11) / Double(1 << 53)
    }

    /// Smooth 1-D value noise in 0..<1: random values at integers, eased in between.
    static func value(_ x: Double, seed: Int) -> Double {
        let cell = x.rounded(.down)
        let t = x - cell
        let ease = t * t * (3 - 2 * t)
        let a = unit(Int(cell), seed: seed)
        let b = unit(Int(cell) + 1, seed: seed)
        return a + (b - a) * ease
    }

    /// Fractal (fBm) 1-D noise in roughly 0..<1: octaves of value noise, each twice as
    /// fine and `persistence` times as strong as the one before.
    static func fractal(_ x: Double, octaves: Int, persistence: Double = 0.5, seed: Int) -> Double {
        var sum = 0.0, amplitude = 1.0, total = 0.0, frequency = 1.0
        for octave in 0..<octaves {
            sum += amplitude * value(x * frequency, seed: seed &+ octave &* 7919)
            total += amplitude
            amplitude *= persistence
            frequency *= 2
        }
        return sum / total
    }
}
