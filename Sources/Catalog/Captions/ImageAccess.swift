/// Who may see an image's pixels: everyone, or only a client holding a credential for it (the admin
/// token or a signed URL naming it). Set per file in the captions sidecar, or by `--private-images`.
public enum ImageAccess: String, Sendable, Hashable, CaseIterable {
    case `public`
    case `private`
}
