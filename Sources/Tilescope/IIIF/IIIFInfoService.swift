/// A service listed in info.json's `service` (3.0 and 2.1): the physical dimensions of a pixel, or the IIIF
/// Authorization Flow 2.0 probe service of a private image.
enum IIIFInfoService: Encodable, Equatable {
    case physicalDimensions(IIIFPhysicalDimensions)
    case auth(AuthProbeService)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .physicalDimensions(let service): try service.encode(to: encoder)
        case .auth(let service): try service.encode(to: encoder)
        }
    }
}
