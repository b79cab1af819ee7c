/// A build job as `GET /api/jobs/{id}` shows it. The job of an image is its pyramid build, so its
/// state is derived from the image's record (itself derived from the images folder and the
/// pyramid store): any replica, or a restarted server, answers the same.
public struct JobJSON: Encodable, Sendable {
    public var id: String
    public var fileName: String
    /// "queued", "building", "ready" or "failed".
    public var status: String
    /// 0...100: the libvips build's progress (100 when ready).
    public var progress: Int
    public var etaSeconds: Int?
    public var reason: String?
    /// The image's JSON, and its tiles once ready.
    public var image: String

    public init(_ record: ImageRecord) {
        id = record.id
        fileName = record.fileName
        image = "/api/images/\(record.id)"
        switch record.status {
        case .queued:
            status = "queued"; progress = 0
        case .building(let build):
            status = "building"; progress = max(0, min(99, build.percent)); etaSeconds = build.etaSeconds
        case .ready:
            status = "ready"; progress = 100
        case .failed(let why):
            status = "failed"; progress = 0; reason = why
        }
    }

    public static func path(_ id: String) -> String { "/api/jobs/\(id)" }
}
