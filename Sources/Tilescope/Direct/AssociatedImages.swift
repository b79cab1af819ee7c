import Catalog
import Foundation
import Imaging

/// A slide's associated images (OpenSlide's label, macro, thumbnail...) published as JPEGs of their own beside
/// its preview, `associated/{name}.jpeg` in the version's folder, and served from there like the preview
/// (`GET /images/{id}/associated/{name}.jpeg`). Small, so read whole once, at publication.
enum AssociatedImages {
    static let folderName = "associated"

    /// Writes each associated image of `source` into `folder` (a staging folder); returns those written. One
    /// that cannot be read or whose name is not safe in a path (`AssociatedImageEntry.isName`) is left out: the
    /// slide is served without it.
    static func publish(from source: PyramidalSource, into folder: String, quality: Int) -> [AssociatedImageEntry] {
        let names = source.associatedImages.filter { AssociatedImageEntry.isName($0) }
        guard !names.isEmpty else { return [] }
        let target = (folder as NSString).appendingPathComponent(folderName)
        var written: [AssociatedImageEntry] = []
        for name in names {
            do {
                guard let image = try source.associatedImage(name) else { continue }
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                try image.saveJPEG(to: path(in: folder, name: name), quality: quality)
                written.append(AssociatedImageEntry(name: name, width: image.width, height: image.height))
            } catch {
                Log.error("associated image \(name) of \(source.path) left out: \(error)")
            }
        }
        return written
    }

    /// Where associated image `name` is in a version's folder.
    static func path(in versionFolder: String, name: String) -> String {
        (versionFolder as NSString).appendingPathComponent(folderName + "/" + name + ".jpeg")
    }
}
