/// What of a pyramid may be served while a progressive build is still adding levels: the
/// descriptor and the preview once the base is published, tiles of each level once that level is.
extension TilescopeApp {
    /// The image's record and the manifest of what is published of it (the whole pyramid once
    /// ready, its published part while building), or the error that says why nothing is.
    func publishedImage(_ id: String) throws -> (ImageRecord, PyramidManifest) {
        let record = try record(id)
        if let manifest = record.servedManifest { return (record, manifest) }
        return try readyImage(id)  // not even the base yet: readyImage's 503, or why it failed
    }

    /// 503 with `Retry-After` (the build's estimate: the finer levels come at its end) for a level
    /// that is not published yet.
    func requirePublished(level: Int, of record: ImageRecord, in manifest: PyramidManifest) throws {
        guard !manifest.isReady(level: level) else { return }
        var percent = 0, eta = 5
        if case .building(let progress) = record.status { (percent, eta) = (progress.percent, progress.etaSeconds) }
        throw APIError(503, "building",
                       "level \(level) of image \(record.id) is still being built (\(percent)%); levels 0 to "
                       + "\(manifest.levelsReady - 1) are ready",
                       headers: [("Retry-After", String(max(1, min(eta, 60))))])
    }
}
