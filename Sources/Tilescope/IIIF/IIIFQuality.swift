/// The quality parameter. `default` and `color` are the image as it is.
enum IIIFQuality: String, CaseIterable, Sendable {
    case `default`, color, gray, bitonal
}
