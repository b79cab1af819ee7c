import Foundation
import ScrollGeometry

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

    /// Refuses a free rotation whose output would exceed `maxArea`: the picture turned by an
    /// angle that is not a quarter turn is drawn on its bounding box, which for a long, thin
    /// size is far larger than the size itself (`93050,31` turned 7 degrees is 92360x11371,
    /// a gigapixel). Worked out in floating point, so no side can overflow.
    func checkArea(of size: PixelSize, maxArea: Int) throws {
        guard quarterTurns == nil else { return }
        let (width, height) = boundingBox(of: size)
        guard width * height <= Double(maxArea) else {
            throw IIIFError.rotation(description, "turns \(size.width)x\(size.height) into \(Int(width))x\(Int(height)), "
                + "more than this server's maxArea of \(maxArea) pixels: ask for a smaller size")
        }
    }

    /// The size of the picture once turned (its bounding box), in floating point so that no side can overflow.
    func boundingBox(of size: PixelSize) -> (width: Double, height: Double) {
        if let quarterTurns {
            return quarterTurns % 2 == 0 ? (Double(size.width), Double(size.height)) : (Double(size.height), Double(size.width))
        }
        let radians = degrees * Double.pi / 180
        let cosine = abs(cos(radians)), sine = abs(sin(radians))
        return ((Double(size.width) * cosine + Double(size.height) * sine).rounded(.up),
                (Double(size.width) * sine + Double(size.height) * cosine).rounded(.up))
    }

    var description: String { (mirror ? "!" : "") + IIIFNumber.canonical(degrees == 360 ? 0 : degrees) }
}
