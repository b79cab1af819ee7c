import Imaging

/// JPEG sources of colour noise over a gradient, for the reduced decodes' tests: each band has its own
/// noise, so the chroma blocks are full of AC coefficients (what a 4:2:0 source's 2x2 chroma uses).
enum NoiseJPEG {
    static func noise(width: Int, height: Int, bands: Int, seed: UInt64) -> [UInt8] {
        var state = seed &* 6364136223846793005 &+ 1442695040888963407
        var pixels = [UInt8](repeating: 0, count: width * height * bands)
        for i in pixels.indices {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let pixel = i / bands
            let ramp = (pixel % width) * 160 / width + (pixel / width) * 60 / height
            pixels[i] = UInt8(truncatingIfNeeded: ramp / 2 + Int(state >> 57))
        }
        return pixels
    }

    /// libvips writes 4:4:4 at quality 90 and above, 4:2:0 below.
    static func source(width: Int, height: Int, bands: Int, quality: Int, in folder: String,
                       pixels: [UInt8]? = nil) throws -> String {
        let path = folder + "/source-\(width)x\(height)-\(bands)-\(quality).jpg"
        let pixels = pixels ?? noise(width: width, height: height, bands: bands, seed: UInt64(width + bands))
        try VImage.fromPixels(pixels, width: width, height: height, bands: bands).saveJPEG(to: path, quality: quality)
        return path
    }
}
