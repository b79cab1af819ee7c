import ScrollGeometry

/// A stored tile's pixels made again from the next finer level's stored tiles: those tiles decoded
/// (each without its overlap) and shrunk 2 x 2 by the mean, as dzsave made the level from the finer
/// one's pixels before either was compressed.
///
/// Why: a tile encoded from its own stored JPEG is a second generation and can only lose picture
/// against it. Shrinking the finer level averages that level's JPEG error away in 2 x 2 blocks, so
/// these pixels are closer to the source than the stored tile (SSIM 0.997 against 0.984-0.994 on
/// bench/client's grainy image), and an encoding of them can be smaller at the stored tile's own
/// picture (bench/formats/levels.py). The deepest level has no finer level.
extension PyramidRegionReader {
    /// Level `level`'s tile at `column`, `row`, overlap included, from level `level + 1`'s tiles.
    /// Grey pyramids give one band, others three.
    public func tileFromFinerLevel(level: Int, column: Int, row: Int) throws -> RegionPixels {
        precondition(pyramid.contains(level: level, column: column, row: row) && level < pyramid.maxLevel)
        let tile = pyramid.tileRect(level: level, column: column, row: row)
        let finer = pyramid.size(ofLevel: level + 1)
        let x1 = min(finer.width, 2 * (tile.x + tile.width)), y1 = min(finer.height, 2 * (tile.y + tile.height))
        let rect = PixelRect(x: 2 * tile.x, y: 2 * tile.y, width: x1 - 2 * tile.x, height: y1 - 2 * tile.y)
        let source = try levelPixels(LevelRegion(level: level + 1, shift: pyramid.maxLevel - level - 1, rect: rect))
        return try source.halved(to: PixelSize(width: tile.width, height: tile.height))
    }

    /// The whole of level `level` (no overlap: the picture the preview is), from level `level + 1`'s
    /// tiles shrunk 2 x 2. Memory: the finer level's pixels and these, five times this level's at most.
    public func levelFromFinerLevel(_ level: Int) throws -> RegionPixels {
        precondition(pyramid.contains(level: level) && level < pyramid.maxLevel)
        let size = pyramid.size(ofLevel: level), finer = pyramid.size(ofLevel: level + 1)
        let source = try levelPixels(LevelRegion(level: level + 1, shift: pyramid.maxLevel - level - 1,
                                                 rect: PixelRect(x: 0, y: 0, width: finer.width, height: finer.height)))
        return try source.halved(to: size)
    }
}

extension RegionPixels {
    /// Each output pixel the rounded mean of its 2 x 2 block (dzsave's shrink); where the block
    /// runs past an odd edge, the edge pixel stands for the missing one, as dzsave extends an odd
    /// level by copying its edge. With alpha (2 or 4 bands, the last the alpha), the alpha is the block's
    /// mean and each colour the block's mean weighted by the alphas (the mean of premultiplied colours over the
    /// mean alpha), so an invisible pixel's colour counts for nothing; a wholly clear block keeps the plain mean.
    /// Laid over any background, such a level is the background-laid finer level shrunk 2 x 2, as the JPEG
    /// levels are.
    func halved(to size: PixelSize) throws -> RegionPixels {
        precondition((width + 1) / 2 >= size.width && (height + 1) / 2 >= size.height)
        let out = try RegionPixels(width: size.width, height: size.height, bands: bands)
        let input = buffer.bytes, output = out.buffer.bytes
        let stride = self.stride, outStride = out.stride, bands = self.bands
        let alpha = bands == 2 || bands == 4 ? bands - 1 : -1
        for y in 0..<size.height {
            let top = input + 2 * y * stride
            let bottom = input + min(2 * y + 1, height - 1) * stride
            let row = output + y * outStride
            for x in 0..<size.width {
                let left = 2 * x * bands, right = min(2 * x + 1, width - 1) * bands
                let a = top + left, b = top + right, c = bottom + left, d = bottom + right
                var weights = (1, 1, 1, 1), total = 4
                if alpha >= 0 {
                    let opacity = (Int(a[alpha]), Int(b[alpha]), Int(c[alpha]), Int(d[alpha]))
                    let sum = opacity.0 + opacity.1 + opacity.2 + opacity.3
                    row[x * bands + alpha] = UInt8((sum + 2) >> 2)
                    if sum > 0 { (weights, total) = (opacity, sum) }
                }
                for band in 0..<bands where band != alpha {
                    let sum = Int(a[band]) * weights.0 + Int(b[band]) * weights.1 + Int(c[band]) * weights.2
                        + Int(d[band]) * weights.3
                    row[x * bands + band] = UInt8((sum + total / 2) / total)
                }
            }
        }
        return out
    }
}
