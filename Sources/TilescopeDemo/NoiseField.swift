/// Fractal value noise as 8-bit greyscale, generated in Swift: the raw material of the
/// gigapixel's terrain. A periodic field tiles seamlessly, so libvips can repeat it.
struct NoiseField {
    let width: Int
    let height: Int
    /// Cell size of the coarsest and finest octave, in pixels (powers of two work best).
    let largestCell: Int
    let smallestCell: Int
    /// Each octave is this much weaker than the one twice as coarse.
    var persistence = 0.5
    /// Whether the lattice wraps around the edges, making the field tileable.
    var periodic = false
    let seed: Int

    /// Row-major bytes centred in `range` and stretched to use most of it (clipped).
    func bytes(in range: ClosedRange<UInt8> = 0...255) -> [UInt8] {
        var sum = [Float](repeating: 0, count: width * height)
        var amplitude = 1.0, total = 0.0, cell = largestCell, octave = 0
        while cell >= max(smallestCell, 1) {
            addOctave(cell: cell, amplitude: Float(amplitude), seed: seed &+ octave &* 1013, into: &sum)
            total += amplitude
            amplitude *= persistence
            cell /= 2
            octave += 1
        }
        // Sums of many octaves cluster around the middle: stretch about it.
        let low = Float(range.lowerBound), high = Float(range.upperBound)
        let gain = (high - low) * 2.2 / Float(max(total, 1e-9)), middle = (low + high) / 2
        return sum.map { UInt8(max(low, min(high, ($0 - Float(total) / 2) * gain + middle))) }
    }

    /// Smoothly interpolated random values on a lattice of `cell`-pixel squares.
    private func addOctave(cell: Int, amplitude: Float, seed: Int, into sum: inout [Float]) {
        let columns = (width + cell - 1) / cell + 1, rows = (height + cell - 1) / cell + 1
        // A periodic lattice needs the field to be a whole number of cells across.
        let wrapX = periodic ? max(width / cell, 1) : Int.max, wrapY = periodic ? max(height / cell, 1) : Int.max
        var lattice = [Float](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            for column in 0..<columns {
                lattice[row * columns + column] =
                    Float(DemoNoise.unit(column % wrapX, row % wrapY, seed: seed)) * amplitude
            }
        }
        // Per-column lattice index and eased fraction, shared by every row.
        let columnIndex = (0..<width).map { $0 / cell }
        let columnEase = (0..<width).map { x -> Float in
            let t = Float(x % cell) / Float(cell)
            return t * t * (3 - 2 * t)
        }
        let width = self.width
        lattice.withUnsafeBufferPointer { lattice in
            sum.withUnsafeMutableBufferPointer { sum in
                for y in 0..<height {
                    let row = y / cell
                    let t = Float(y % cell) / Float(cell)
                    let ty = t * t * (3 - 2 * t)
                    let top = row * columns, bottom = top + columns
                    let base = y * width
                    for x in 0..<width {
                        let c = columnIndex[x], tx = columnEase[x]
                        let upper = lattice[top + c] + (lattice[top + c + 1] - lattice[top + c]) * tx
                        let lower = lattice[bottom + c] + (lattice[bottom + c + 1] - lattice[bottom + c]) * tx
                        sum[base + x] += upper + (lower - upper) * ty
                    }
                }
            }
        }
    }
}
