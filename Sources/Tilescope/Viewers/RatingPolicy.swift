/// `--ratings`: who may write ratings. Reading them is open to everyone whatever this says.
public enum RatingPolicy: String, Sendable, CaseIterable {
    /// Any client: an anonymous browser is a viewer through its signed cookie.
    case anyone
    /// Only requests with the admin token (`Authorization: Bearer`, `--admin-token`).
    case admins
    /// Nobody: writes get 403 `ratings_off`, and the ratings already given are still shown.
    case off
}
