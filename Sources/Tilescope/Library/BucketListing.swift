/// What an images bucket's listings found, and whether the next one must be whole (`BucketSources.list`).
///
/// A whole listing costs ⌈objects / 1,000⌉ requests: 100 a pass at 100,000 images. Between whole listings of a
/// bucket that needs more than one page, a pass asks only for the keys after the greatest one it knows (S3 lists
/// in the byte order of the keys' UTF-8, and `start-after` starts there): one request when nothing was added.
/// What it finds is added to the objects known; replaced and removed objects, and names that sort earlier, wait
/// for the next whole listing (`wholeEvery`, `--images-relist`). A bucket of one page is listed whole at every
/// pass, which costs the same one request and sees every change.
struct BucketListing {
    /// `--images-relist`'s default: a change other than an object added under a name that sorts last is seen
    /// within a minute in a bucket of more than 1,000 objects.
    static let defaultWholeSeconds = 60

    /// Longest time between whole listings (zero: every pass is whole).
    let wholeEvery: Duration
    /// The sources known from the last whole listing and the additions after it, sorted by name.
    private(set) var objects: [BucketObject] = []
    /// The greatest key listed so far (a source or not): where the next partial listing starts.
    private(set) var lastKey: String?
    private var lastWhole: ContinuousClock.Instant?
    /// Pages the last whole listing took.
    private var wholePages = 0
    private var wholeNext = true

    init(wholeEvery: Duration) {
        self.wholeEvery = wholeEvery
    }

    /// Where the next listing starts (`start-after`), or nil when it must be whole: none yet, one asked for, the
    /// interval past, a bucket of one page, or an empty one.
    func keyToListAfter(at now: ContinuousClock.Instant) -> String? {
        guard !wholeNext, wholePages > 1, let lastKey, let lastWhole, now - lastWhole < wholeEvery else { return nil }
        return lastKey
    }

    /// Takes a whole listing: what it found replaces what was known.
    mutating func tookWhole(_ found: [BucketObject], lastKey: String?, pages: Int, at now: ContinuousClock.Instant) {
        objects = found
        self.lastKey = lastKey
        lastWhole = now
        wholePages = pages
        wholeNext = false
    }

    /// Takes a listing of the keys after `lastKey`; returns every object known, sorted by name. An added name
    /// already known (a store that listed it again) is not taken twice.
    mutating func took(added: [BucketObject], lastKey newLast: String?) -> [BucketObject] {
        if let newLast, lastKey.map({ Self.sortsAfter(newLast, $0) }) ?? true { lastKey = newLast }
        guard !added.isEmpty else { return objects }
        let known = Set(objects.map(\.name))
        objects = (objects + added.filter { !known.contains($0.name) }).sorted { $0.name < $1.name }
        return objects
    }

    /// The next listing is whole: after this server wrote or deleted a source, or after a listing failed.
    mutating func listWholeNext() {
        wholeNext = true
    }

    /// Whether `key` comes after `other` in S3's listing order: their UTF-8 bytes compared one by one.
    static func sortsAfter(_ key: String, _ other: String) -> Bool {
        other.utf8.lexicographicallyPrecedes(key.utf8)
    }
}
