import ScrollGeometry

/// Floating-point equality for worked examples: relative to the magnitude, with a floor for values near zero.
func approx(_ a: Double, _ b: Double, _ tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance * max(1, abs(a), abs(b))
}

func approx(_ a: Rect, _ b: Rect, _ tolerance: Double = 1e-9) -> Bool {
    approx(a.x, b.x, tolerance) && approx(a.y, b.y, tolerance)
        && approx(a.width, b.width, tolerance) && approx(a.height, b.height, tolerance)
}

func approx(_ a: Point, _ b: Point, _ tolerance: Double = 1e-9) -> Bool {
    approx(a.x, b.x, tolerance) && approx(a.y, b.y, tolerance)
}
