import Tilescope
import TilescopeDemo

/// The built-in demo gallery, handed to the server as its `DemoContent`.
struct BuiltInDemo: DemoContent {
    func writeQuickImages(into folder: String) throws {
        try DemoGallery.writeQuickImages(into: folder)
    }

    func writeLargeImage(into folder: String, progress: @escaping @Sendable (Int) -> Void) throws {
        try DemoGallery.writeGigapixelImage(into: folder, progress: progress)
    }
}
