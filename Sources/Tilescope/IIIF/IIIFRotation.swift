/// The rotation parameter: an optional mirror (`!`, applied first) and a clockwise angle.
struct IIIFRotation: Equatable, Sendable {
    var mirror: Bool
    /// 0 up to 360.
    var degrees: Double

    static func parse(_ text: String) throws -> IIIFRotation {
        let mirror = text.hasPrefix("!")
        guard let degrees = IIIFNumber.decimal(mirror ? text.dropFirst() : Substring(text)) else {
            throw IIIFError.rotation(text, "is not a number of degrees, optionally after !")
        }
        guard degrees <= 360 else { throw IIIFError.rotation(text, "is more than 360 degrees") }
        return IIIFRotation(mirror: mirror, degrees: degrees)
    }

    /// The angle as quarter turns (0...3) when it is a multiple of 90 degrees.
    var quarterTurns: Int? {
        let turns = degrees / 90
        return turns == turns.rounded() ? Int(turns) % 4 : nil
    }

    var description: String { (mirror ? "!" : "") + IIIFNumber.canonical(degrees == 360 ? 0 : degrees) }
}
