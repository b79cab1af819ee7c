/// `--ratings`: who may write ratings. Reading them is open to everyone whatever this says.
public enum RatingPolicy: String, Sendable, CaseIterable {
    /// Any client: an anonymous browser is a viewer through its signed cookie.
    case anyone
    /// Signed-in users (a session, or a trusted proxy's header: `docs/access.md`) and admins.
    case signedIn = "signed-in"
    /// Only requests with the admin token or an admin's session (`Authorization: Bearer`, `--admin-token`).
    case admins
    /// Nobody: writes get 403 `ratings_off`, and the ratings already given are still shown.
    case off
}
