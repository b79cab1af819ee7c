import Foundation
import Imaging
import ScrollGeometry

/// The built-in demo gallery that `tilescope serve` shows when given no images: generated
/// by the project's own code on first run, nothing downloaded, nothing large committed.
///
/// Every writer skips files that already exist and stages each file under a temporary
/// name, so calling them again after an interruption only finishes what is missing.
public enum DemoGallery {
    public static let captionsFileName = "captions.json"
    public static let gigapixelSize = DemoImage.gigapixel.size

    /// Writes the small and medium images and `captions.json` into `folder` (created if
    /// needed), skipping what is already there. A few seconds in a release build.
    public static func writeQuickImages(into folder: String) throws {
        try Vips.start()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try writeCaptions(into: folder)
        let missing = DemoImage.quick.filter { !FileManager.default.fileExists(atPath: path(of: $0, in: folder)) }
        // Painting is plain CPU work: one image per core.
        let failures = FailureList()
        DispatchQueue.concurrentPerform(iterations: missing.count) { index in
            do {
                try write(missing[index], into: folder)
            } catch {
                failures.append(error)
            }
        }
        if let first = failures.first { throw first }
    }

    /// Streams the gigapixel image (or, for tests, the same pipeline at another `size`)
    /// to `folder/gigapixel.jpg`, unless it exists (then it returns at once). `progress`
    /// receives percentages from libvips's computing thread, ending with 100. Memory stays
    /// bounded: libvips computes it strip by strip (measured for the real size: about 15 s
    /// of CPU and 125 MB peak; uses the libvips concurrency in force).
    public static func writeGigapixelImage(
        into folder: String, size: PixelSize = gigapixelSize,
        progress: @escaping @Sendable (Int) -> Void = { _ in }
    ) throws {
        guard (16...65_535).contains(size.width), (16...65_535).contains(size.height) else {
            throw DemoGalleryError.invalidSize(width: size.width, height: size.height)
        }
        try Vips.start()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let target = path(of: .gigapixel, in: folder)
        guard !FileManager.default.fileExists(atPath: target) else { return }
        let image = try GigapixelPipeline(size: size).image()
        try StagedFile.write(target) { temporary in
            try image.saveJPEG(to: temporary, quality: 85) { progress($0.percent) }
        }
        progress(100)
    }

    /// Title and caption of every demo image, keyed by file name.
    public static func captions() -> [String: [String: String]] {
        Dictionary(uniqueKeysWithValues: DemoImage.all.map { ($0.fileName, ["title": $0.title, "caption": $0.caption]) })
    }

    public static func path(of image: DemoImage, in folder: String) -> String {
        (folder as NSString).appendingPathComponent(image.fileName)
    }

    /// Rewritten only when its content differs, so a second run leaves it untouched.
    private static func writeCaptions(into folder: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data = try encoder.encode(captions())
        let target = (folder as NSString).appendingPathComponent(captionsFileName)
        guard FileManager.default.contents(atPath: target) != data else { return }
        try StagedFile.write(target) { temporary in
            try data.write(to: URL(fileURLWithPath: temporary))
        }
    }

    private static func write(_ image: DemoImage, into folder: String) throws {
        let canvas = paint(image)
        let target = path(of: image, in: folder)
        if image.fileName.hasSuffix(".png") {
            // Lossless, so the grid's labels can be checked pixel for pixel.
            let png = try canvas.image().pngData()
            try StagedFile.write(target) { try Data(png).write(to: URL(fileURLWithPath: $0)) }
        } else {
            let picture = try canvas.image()
            try StagedFile.write(target) { try picture.saveJPEG(to: $0, quality: 92) }
        }
    }

    private static func paint(_ image: DemoImage) -> PixelCanvas {
        let size = image.size
        switch image {
        case .panorama: return PanoramaPainter(width: size.width, height: size.height).paint()
        case .tower: return TowerPainter(width: size.width, height: size.height).paint()
        case .mandelbrot: return MandelbrotPainter(size: size.width).paint()
        case .grid: return GridPainter(width: size.width, height: size.height).paint()
        case .small: return ColourWheelPainter(width: size.width, height: size.height).paint()
        default: preconditionFailure("\(image.fileName) is not painted in Swift")
        }
    }
}

/// Errors collected from concurrent work.
private final class FailureList: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [Error] = []

    func append(_ error: Error) {
        lock.lock()
        defer { lock.unlock() }
        errors.append(error)
    }

    var first: Error? {
        lock.lock()
        defer { lock.unlock() }
        return errors.first
    }
}
