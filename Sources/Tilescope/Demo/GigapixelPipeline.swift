import Foundation
import Imaging
import ScrollGeometry

/// Describes the gigapixel demo image as a lazy libvips pipeline, so it streams to disk
/// in strips and memory stays bounded however large it is.
///
/// It layers interference patterns at four scales, each visible over a different range
/// of zoom: a colour field across the whole image, a five-fold quasicrystal with cells of
/// a few thousand pixels, a hexagonal lattice of a few hundred, and a fine lattice of a few
/// dozen that only the deepest levels show. A coordinate grid every 4096 px, labelled
/// with its image coordinates, tells you where you are at the middle zooms.
struct GigapixelPipeline {
    let size: PixelSize

    /// Grid lines and labels are drawn on a canvas this many times smaller, then enlarged
    /// block by block: a few megapixels of Swift drawing for a gigapixel overlay.
    static let overlayFactor = 16
    static let gridStep = 4096

    func image() throws -> VImage {
        let xy = try VImage.coordinates(width: size.width, height: size.height)
        let x = try xy.band(0), y = try xy.band(1)

        /// sin(2π (x cos θ + y sin θ) / wavelength + phase); libvips's sin takes degrees.
        func wave(wavelength: Double, degrees: Double, phase: Double = 0) throws -> VImage {
            let k = 360 / wavelength, angle = degrees * Double.pi / 180
            return try x.linear(k * cos(angle), phase).adding(y.linear(k * sin(angle), 0)).sin()
        }
        /// Sum of plane waves in `count` evenly spaced directions: a quasicrystal (5) or a lattice (3).
        func crystal(wavelength: Double, count: Int, turn: Double) throws -> VImage {
            var sum = try wave(wavelength: wavelength, degrees: turn)
            for index in 1..<count {
                sum = try sum.adding(wave(wavelength: wavelength, degrees: turn + 180 * Double(index) / Double(count),
                                          phase: 90))
            }
            return sum
        }

        let span = Double(max(size.width, size.height))
        let fieldRed = try wave(wavelength: span * 1.4, degrees: 20, phase: 40)
        let fieldGreen = try wave(wavelength: span * 1.1, degrees: 110, phase: 200)
        let fieldBlue = try wave(wavelength: span * 0.9, degrees: 250, phase: 120)
        let large = try crystal(wavelength: 2600, count: 5, turn: 9)   // -5...5
        let medium = try crystal(wavelength: 240, count: 3, turn: 0)   // -3...3
        let fine = try crystal(wavelength: 28, count: 3, turn: 30)     // -3...3
        let overlay = try gridOverlay()

        func channel(_ field: VImage, base: Double, fieldWeight: Double, large l: Double, medium m: Double,
                     fine f: Double) throws -> VImage {
            try field.linear(fieldWeight, base)
                .adding(large.linear(l, 0))
                .adding(medium.linear(m, 0))
                .adding(fine.linear(f, 0))
                .adding(overlay)
        }
        let red = try channel(fieldRed, base: 120, fieldWeight: 70, large: 14, medium: 9, fine: 7)
        let green = try channel(fieldGreen, base: 110, fieldWeight: 60, large: 10, medium: -10, fine: 7)
        let blue = try channel(fieldBlue, base: 140, fieldWeight: 70, large: -12, medium: 8, fine: -7)
        return try VImage.bandJoin([red, green, blue]).castToUChar()
    }

    /// 0 where the picture shows, strongly negative on grid lines and labels (so they
    /// come out near black after clipping).
    private func gridOverlay() throws -> VImage {
        let factor = Self.overlayFactor
        let small = PixelSize(width: (size.width + factor - 1) / factor, height: (size.height + factor - 1) / factor)
        var canvas = PixelCanvas(width: small.width, height: small.height)
        let step = Self.gridStep / factor
        for x in stride(from: 0, to: small.width, by: step) {
            canvas.fill(.init(x: x, y: 0, width: 1, height: small.height), with: .white)
        }
        for y in stride(from: 0, to: small.height, by: step) {
            canvas.fill(.init(x: 0, y: y, width: small.width, height: 1), with: .white)
        }
        for y in stride(from: 0, to: small.height, by: step) {
            for x in stride(from: 0, to: small.width, by: step) {
                canvas.drawText("\(x * factor),\(y * factor)", x: x + 6, y: y + 6, scale: 2, color: .white)
            }
        }
        return try canvas.image().band(0)
            .zoom(across: factor, down: factor)
            .crop(x: 0, y: 0, width: size.width, height: size.height)
            .linear(-1, 0)
    }
}
