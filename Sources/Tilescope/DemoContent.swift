/// What `tilescope serve` shows when it is given no images folder. The executable supplies it
/// (the `TilescopeDemo` module paints the built-in gallery), so the server knows nothing of how a
/// demo is made.
public protocol DemoContent: Sendable {
    /// Writes the images that take seconds (and their captions) into `folder`, skipping what is there.
    func writeQuickImages(into folder: String) throws
    /// Writes the large image into `folder` (nothing if it is there), reporting percentages done.
    func writeLargeImage(into folder: String, progress: @escaping @Sendable (Int) -> Void) throws
}
