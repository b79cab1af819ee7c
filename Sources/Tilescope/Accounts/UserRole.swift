/// What a user of the users file may do: a `viewer` sees private images and rates (when `--ratings`
/// lets signed-in users); an `admin` also does everything the admin token does.
enum UserRole: String, Sendable, CaseIterable {
    case viewer
    case admin
}
