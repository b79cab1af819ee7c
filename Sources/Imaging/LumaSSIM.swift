/// How close one picture is to another: the mean SSIM of their luma over 9 x 9 box windows, with
/// the constants of Wang et al. (2004); 1 for identical pictures, lower the more they differ.
///
/// Why here: the server keeps a tile in a smaller format only where its picture reaches the stored
/// JPEG tile's, both measured against the source's own pixels (`DeepZoomFormatTiles`). It is the
/// measure bench/formats/picture.py reports, computed the same way (luma 0.299 R + 0.587 G +
/// 0.114 B in doubles; windows wholly inside the picture), so a benchmark's SSIM and the server's
/// decision agree. Pictures narrower or shorter than 9 pixels use the largest odd window that fits.
public enum LumaSSIM {
    /// `a` and `b` are 8-bit interleaved pixels of the same `width` x `height`, with `bandsA` and
    /// `bandsB` bands (1 or 2: grey first; 3 or 4: RGB first; an alpha band is ignored).
    public static func score(_ a: [UInt8], bands bandsA: Int, _ b: [UInt8], bands bandsB: Int,
                             width: Int, height: Int) -> Double {
        score(a, bands: bandsA, b, bands: bandsB, width: width, height: height, bandWindowRows: 64)
    }

    /// `bandWindowRows`: how many rows of windows are measured at a time (any positive number gives the
    /// same score, to rounding).
    static func score(_ a: [UInt8], bands bandsA: Int, _ b: [UInt8], bands bandsB: Int,
                      width: Int, height: Int, bandWindowRows: Int) -> Double {
        precondition(width > 0 && height > 0 && bandWindowRows > 0)
        precondition(a.count == width * height * bandsA && b.count == width * height * bandsB)
        let radius = min(4, (min(width, height) - 1) / 2)
        let side = 2 * radius + 1
        let windowRows = height - side + 1
        // In bands of window rows, each with the `side - 1` rows below it: a whole preview's tables
        // (eight arrays of doubles) would take 64 MB at 1024 x 1024, these take a fifteenth of that.
        var total = 0.0, top = 0
        while top < windowRows {
            let tops = min(bandWindowRows, windowRows - top), rows = tops + side - 1
            let x = luma(a[(top * width * bandsA)..<((top + rows) * width * bandsA)], bands: bandsA)
            let y = luma(b[(top * width * bandsB)..<((top + rows) * width * bandsB)], bands: bandsB)
            total += windowSum(x, y, width: width, rows: rows, side: side)
            top += tops
        }
        return total / Double(windowRows * (width - side + 1))
    }

    /// The sum of every `side` x `side` window's SSIM inside `rows` rows of luma.
    private static func windowSum(_ x: [Double], _ y: [Double], width: Int, rows: Int, side: Int) -> Double {
        let area = Double(side * side)
        let c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255)
        let sx = BoxSums(x, width: width, height: rows)
        let sy = BoxSums(y, width: width, height: rows)
        let sxx = BoxSums(x.indices.map { x[$0] * x[$0] }, width: width, height: rows)
        let syy = BoxSums(y.indices.map { y[$0] * y[$0] }, width: width, height: rows)
        let sxy = BoxSums(x.indices.map { x[$0] * y[$0] }, width: width, height: rows)
        var total = 0.0
        for top in 0...(rows - side) {
            for left in 0...(width - side) {
                let mx = sx.sum(left, top, side) / area, my = sy.sum(left, top, side) / area
                let vx = sxx.sum(left, top, side) / area - mx * mx
                let vy = syy.sum(left, top, side) / area - my * my
                let cov = sxy.sum(left, top, side) / area - mx * my
                total += ((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
            }
        }
        return total
    }

    static func luma(_ pixels: ArraySlice<UInt8>, bands: Int) -> [Double] {
        precondition((1...4).contains(bands))
        let count = pixels.count / bands, start = pixels.startIndex
        if bands < 3 { return (0..<count).map { Double(pixels[start + $0 * bands]) } }
        return (0..<count).map { i -> Double in
            let red = Double(pixels[start + i * bands]), green = Double(pixels[start + i * bands + 1])
            let blue = Double(pixels[start + i * bands + 2])
            return 0.299 * red + 0.587 * green + 0.114 * blue
        }
    }
}

/// Sums over any square of a grid of values in four lookups (a summed-area table, as numpy's
/// double cumulative sum in picture.py).
private struct BoxSums {
    private let table: [Double]
    private let stride: Int

    init(_ values: [Double], width: Int, height: Int) {
        stride = width + 1
        var table = [Double](repeating: 0, count: (width + 1) * (height + 1))
        for y in 0..<height {
            var row = 0.0
            for x in 0..<width {
                row += values[y * width + x]
                table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + row
            }
        }
        self.table = table
    }

    /// The sum over the `side` x `side` square whose top left value is at `left`, `top`.
    func sum(_ left: Int, _ top: Int, _ side: Int) -> Double {
        let right = left + side, bottom = top + side
        return table[bottom * stride + right] - table[top * stride + right] - table[bottom * stride + left]
            + table[top * stride + left]
    }
}
