// TEMPORARY until the demo branch lands: minimal generator so the skeleton builds.
import Foundation
import Imaging
public enum DemoGallery {
    public static func writeQuickImages(into folder: String) throws {}
    public static func writeGigapixelImage(into folder: String, progress: @escaping @Sendable (Int) -> Void) throws {}
}
