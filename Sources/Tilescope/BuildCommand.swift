import Catalog
import Foundation
import Imaging

/// `tilescope build`: builds pyramids for the given source files into the data folder,
/// exactly as the server would (same store, same ids, same crash safety).
public struct BuildCommand {
    public var dataFolder = "data"
    public var quality = 85
    public var sources: [String] = []

    public init() {}

    public static let settings: [Setting<BuildCommand>] = [
        Setting("--data", env: "TILESCOPE_DATA", default: "data", "folder for pyramids") { $0.dataFolder = $1 },
        Setting("--quality", env: "TILESCOPE_QUALITY", default: "85", "JPEG quality of pyramid tiles") {
            $0.quality = try SettingValue.integer($1, "quality", in: 1...100)
        },
    ]

    /// Builds every source; returns the number that failed.
    public func run(progress: @escaping @Sendable (String, BuildProgress) -> Void,
                    log: (String) -> Void) throws -> Int {
        try Vips.start()
        let store = try FilePyramidStore(dataFolder: dataFolder)
        let ids = ImageID.assign(sources.map { ($0 as NSString).lastPathComponent })
        let builder = PyramidBuilder(quality: quality)
        var failures = 0
        for source in sources {
            let name = (source as NSString).lastPathComponent
            guard let id = ids[name], let (fingerprint, _) = SourceFingerprint.compute(source) else {
                log("\(source): cannot read the file")
                failures += 1
                continue
            }
            let version = fingerprint.value
            if store.manifest(id: id, version: version) != nil {
                log("\(id): up to date (\(store.folder(id: id, version: version)))")
                continue
            }
            let started = Date()
            let staging = try store.makeStagingFolder(id: id, version: version)
            do {
                let pyramid = try builder.build(source: source, into: staging) { progress(id, $0) }
                let manifest = PyramidManifest(pyramid: pyramid, source: name, version: version)
                _ = try store.publish(stagingFolder: staging, manifest: manifest, id: id, version: version)
                store.removeVersions(of: id, except: version)
                log("\(id): \(pyramid.width)x\(pyramid.height), \(pyramid.maxLevel + 1) levels, "
                    + String(format: "%.1f s", Date().timeIntervalSince(started)) + " -> \(store.folder(id: id, version: version))")
            } catch {
                store.discard(stagingFolder: staging)
                log("\(id): failed: \(error)")
                failures += 1
            }
        }
        return failures
    }
}
