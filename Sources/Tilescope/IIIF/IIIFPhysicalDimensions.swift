/// IIIF's physical-dimensions service (an annex to the Image API, for 2.1 and 3.0 alike): how large a pixel is,
/// for viewers that draw a ruler or a scale bar. Listed in `info.json` when the source says (a slide's microns per
/// pixel: `PyramidManifest.micronsPerPixel`), in millimetres, the unit closest to a slide's.
struct IIIFPhysicalDimensions: Encodable, Equatable {
    var context = "http://iiif.io/api/annex/services/physdim/1/context.json"
    var profile = "http://iiif.io/api/annex/services/physdim"
    /// Millimetres per pixel. The service has one scale for both directions: the horizontal one.
    var physicalScale: Double
    var physicalUnits = "mm"

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case profile, physicalScale, physicalUnits
    }

    init?(_ microns: MicronsPerPixel?) {
        guard let microns else { return nil }
        physicalScale = microns.x / 1000
    }
}
