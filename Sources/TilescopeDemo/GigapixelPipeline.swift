import Foundation
import Imaging
import ScrollGeometry

/// Describes the gigapixel demo image as a lazy libvips pipeline, so it streams to disk
/// in strips and memory stays bounded however large it is.
///
/// The picture is a map of an imaginary archipelago. Its height field is fractal noise in
/// two layers, each made once in Swift at a few megapixels: continents down to bays of
/// 32 px (a map 8 times smaller than the image, enlarged, never repeating) and rocks from
/// 16 px to single pixels (a seamless tile, repeated; its features are far smaller than
/// its period, so the repeats cannot be seen over continents that never repeat). A
/// palette turns height into sea, beach, forest, rock and snow. A coordinate grid every
/// 4096 px, labelled with its image coordinates, is drawn into the continent map as a
/// reserved height the palette paints as ink.
///
/// Per pixel, libvips only enlarges, copies, adds two bytes and looks up a colour: no
/// floating point, so a gigapixel costs about a minute of CPU.
struct GigapixelPipeline {
    let size: PixelSize

    /// The continent map is this many times smaller than the image.
    static let coarseFactor = 8
    static let gridStep = 4096
    static let labelScale = 3
    /// Continents take heights 0...238 and rocks add 0...16, so terrain stays below the
    /// ink level (255) and the grid stays at or above it.
    static let continentRange: ClosedRange<UInt8> = 0...238
    static let rockRange: ClosedRange<UInt8> = 0...16

    /// The repeated rock tile: 2048 px for the real image; smaller for small test images,
    /// so that they still hold repeats and generate quickly.
    var rockTile: Int {
        var tile = 2048
        while tile > 256, tile * 2 > max(size.width, size.height) { tile /= 2 }
        return tile
    }

    var coarseSize: PixelSize {
        let factor = Self.coarseFactor
        return PixelSize(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
    }

    func image() throws -> VImage {
        let coarse = coarseSize
        // A rough fractal (persistence 0.62), so coastlines keep wiggling as you zoom in.
        var continents = NoiseField(width: coarse.width, height: coarse.height, largestCell: 1024, smallestCell: 4,
                                    persistence: 0.62, seed: 1).bytes(in: Self.continentRange)
        drawGrid(into: &continents, size: coarse)
        let map = try VImage.fromPixels(continents, width: coarse.width, height: coarse.height, bands: 1)
            .zoom(across: Self.coarseFactor, down: Self.coarseFactor)
            .crop(x: 0, y: 0, width: size.width, height: size.height)
        let rocks = NoiseField(width: rockTile, height: rockTile, largestCell: 16, smallestCell: 1,
                               persistence: 0.62, periodic: true, seed: 2).bytes(in: Self.rockRange)
        let rockLayer = try VImage.fromPixels(rocks, width: rockTile, height: rockTile, bands: 1)
            .replicate(across: (size.width + rockTile - 1) / rockTile, down: (size.height + rockTile - 1) / rockTile)
            .crop(x: 0, y: 0, width: size.width, height: size.height)
        let levels = Int(TerrainPalette.inkLevel) + Int(Self.rockRange.upperBound) + 1
        let palette = try VImage.fromPixels(TerrainPalette().table(count: levels), width: levels, height: 1, bands: 3)
        return try map.adding(rockLayer).mapped(through: palette)
    }

    /// Lines every `gridStep` px and each crossing's coordinates, at the ink level.
    private func drawGrid(into heights: inout [UInt8], size: PixelSize) {
        let factor = Self.coarseFactor, step = Self.gridStep / factor, ink = UInt8(TerrainPalette.inkLevel)
        for y in 0..<size.height {
            for x in stride(from: 0, to: size.width, by: step) { heights[y * size.width + x] = ink }
        }
        for y in stride(from: 0, to: size.height, by: step) {
            for x in 0..<size.width { heights[y * size.width + x] = ink }
        }
        for y in stride(from: 0, to: size.height, by: step) {
            for x in stride(from: 0, to: size.width, by: step) {
                let text = "\(x * factor),\(y * factor)"
                for (index, character) in text.enumerated() {
                    for row in 0..<BitmapFont.glyphHeight {
                        for column in 0..<BitmapFont.glyphWidth
                        where BitmapFont.isInk(character, column: column, row: row) {
                            let left = x + 4 + (index * BitmapFont.advance + column) * Self.labelScale
                            let top = y + 4 + row * Self.labelScale
                            for dy in 0..<Self.labelScale where top + dy < size.height {
                                for dx in 0..<Self.labelScale where left + dx < size.width {
                                    heights[(top + dy) * size.width + left + dx] = ink
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
