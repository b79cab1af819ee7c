/// The IIIF Authorization Flow 2.0 services a private image advertises (https://iiif.io/api/auth/2.0/):
/// a probe service for the image, holding the access services (`active`: Tilescope's login page; `external`:
/// a trusted proxy's header, when `--auth-header` is set), each with the access token service and the
/// logout service. Listed in info.json (3.0 and 2.1), on the image of a Presentation manifest, and in the
/// 401 answers of the image's routes, so a client that meets a private image learns how to get in.
struct AuthProbeService: Encodable, Equatable, Sendable {
    struct Service: Encodable, Equatable, Sendable {
        var id: String
        var type: String
        var profile: String?
        var label: Presentation.LanguageMap?
        var heading: Presentation.LanguageMap?
        var note: Presentation.LanguageMap?
        var confirmLabel: Presentation.LanguageMap?
        var errorHeading: Presentation.LanguageMap?
        var errorNote: Presentation.LanguageMap?
        var service: [Service]?
    }

    var context = AuthServices.contextURI
    var id: String
    var type = "AuthProbeService2"
    var service: [Service]
    var errorHeading: Presentation.LanguageMap?
    var errorNote: Presentation.LanguageMap?

    enum CodingKeys: String, CodingKey {
        case context = "@context"
        case id, type, service, errorHeading, errorNote
    }
}

/// The paths of the services, and the probe service of an image with absolute URLs.
enum AuthServices {
    static let contextURI = "http://iiif.io/api/auth/2/context.json"
    static let loginPath = "/auth/login"
    static let externalPath = "/auth/external"
    static let tokenPath = "/auth/token"
    static let logoutPath = "/auth/logout"
    static let probePrefix = "/auth/probe/"
    static let degradedPrefix = "/auth/degraded/"

    /// The probe service of image `id`, its URLs made absolute by `url` (which adds a signed mount, if any).
    static func probe(id: String, external: Bool, url: (String) -> String) -> AuthProbeService {
        let token = AuthProbeService.Service(id: url(tokenPath), type: "AuthAccessTokenService2",
                                             errorHeading: Presentation.english("Not signed in"),
                                             errorNote: Presentation.english("Sign in to see this image."))
        let logout = AuthProbeService.Service(id: url(logoutPath), type: "AuthLogoutService2",
                                              label: Presentation.english("Sign out"))
        var access = [AuthProbeService.Service(
            id: url(loginPath), type: "AuthAccessService2", profile: "active",
            label: Presentation.english("Sign in to see this image"),
            heading: Presentation.english("This image is private"),
            note: Presentation.english("Sign in with your account on this server to see it."),
            confirmLabel: Presentation.english("Sign in"), service: [token, logout])]
        if external {
            access.append(AuthProbeService.Service(
                id: url(externalPath), type: "AuthAccessService2", profile: "external",
                label: Presentation.english("Signed in through your organisation"), service: [token, logout]))
        }
        return AuthProbeService(id: url(probePrefix + IIIFService.encode(id)), service: access,
                                errorHeading: Presentation.english("This image is private"),
                                errorNote: Presentation.english("Sign in to see it."))
    }
}
