/// An access key pair (and, for temporary credentials, a session token) that signs requests.
/// Its description never shows the secret or the token, so it is safe in logs and errors.
public struct SigV4Credentials: Sendable, CustomStringConvertible {
    public let accessKeyID: String
    public let secretAccessKey: String
    /// STS session token: sent as `x-amz-security-token` (signed), or `X-Amz-Security-Token` in a presigned URL.
    public let sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// From `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN` (credentials never
    /// come from a command line, where `ps` shows them); nil when the key or the secret is missing.
    public static func fromEnvironment(_ environment: [String: String]) -> SigV4Credentials? {
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
              let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty else { return nil }
        return SigV4Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: environment["AWS_SESSION_TOKEN"])
    }

    public var description: String {
        "SigV4Credentials(accessKeyID: \(accessKeyID), secret: <hidden>\(sessionToken == nil ? "" : ", session token: <hidden>"))"
    }
}
