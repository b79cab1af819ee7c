/// Which way a tap zooms: a double tap multiplies the zoomScale by its factor, a two-finger tap divides by it.
public enum TapDirection: String, Hashable, Sendable, CaseIterable {
    case `in`
    case out
}
