import Imaging

/// IIIF answers of a direct source that are one of its stored JPEG tiles exactly, sent as stored: no decode, no
/// encode, so none of the client's render budget (`PyramidalSource.storedJPEG`). That is every tile a IIIF
/// client asks for by the source's own grid (`IIIFInfo`'s `tiles` for a direct source) at a level the file
/// holds, but for the short tiles at the level's right and bottom ends.
enum StoredSourceTiles {
    /// The stored JPEG that answers `rendering` from `source`, or nil when the answer must be made.
    static func jpeg(for rendering: IIIFRendering, from source: PyramidalSource) throws -> [UInt8]? {
        guard isPlain(rendering) else { return nil }
        return try source.storedJPEG(rendering.region, size: rendering.size)
    }

    /// A JPEG of the region's pixels as they are: not turned, not mirrored, in colour as stored.
    static func isPlain(_ rendering: IIIFRendering) -> Bool {
        rendering.format == .jpg && (rendering.quality == .default || rendering.quality == .color)
            && !rendering.rotation.mirror && rendering.rotation.degrees == 0
    }
}
