import Catalog
import Foundation

/// The images folder's captions as last read, reloaded when a sidecar's `stat` signature changes.
///
/// A malformed sidecar is logged once per change and the last good captions stay in use, so a
/// half-saved edit never blanks the gallery.
public final class CaptionsCache: @unchecked Sendable {
    public let imagesFolder: String
    private let lock = NSLock()
    private var captions = Captions()
    private var signature: String?
    private var rejected = 0
    private var changes = 0
    private var changeObserver: (@Sendable (_ old: Captions, _ new: Captions) -> Void)?

    public init(imagesFolder: String) {
        self.imagesFolder = imagesFolder
    }

    public var current: Captions { lock.withLock { captions } }

    /// Counts the times new captions came into use: what the gallery's cached order is checked against.
    public var generation: Int { lock.withLock { changes } }

    /// Sidecar versions refused as malformed since start (each logged once, the last good captions kept).
    public var rejectedVersions: Int { lock.withLock { rejected } }

    /// Calls `observer` with the captions before and after each change, once the new ones are in use (what
    /// is answered from memory for an image made private by the sidecar must go then).
    public func onChange(_ observer: @escaping @Sendable (_ old: Captions, _ new: Captions) -> Void) {
        lock.withLock { changeObserver = observer }
    }

    /// Reads the sidecars again if they changed since the last call; true if new captions are in use.
    @discardableResult
    public func refresh() -> Bool {
        let now = Captions.sidecarSignature(imagesFolder: imagesFolder)
        guard lock.withLock({ now != signature }) else { return false }
        let loaded: Captions
        do {
            loaded = try Captions.load(imagesFolder: imagesFolder)
        } catch {
            lock.withLock {
                signature = now
                rejected += 1
            }
            Log.error("captions not reloaded, the previous ones stay in use: \(error)")
            return false
        }
        let (changed, old, observer) = lock.withLock {
            signature = now
            let changed = loaded != captions, old = captions
            captions = loaded
            if changed { changes += 1 }
            return (changed, old, changeObserver)
        }
        if changed { observer?(old, loaded) }
        return changed
    }
}
