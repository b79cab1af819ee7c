/// How the process's open-files limit is shared, so that cached tile descriptors can never take
/// the descriptors `accept` needs, and connections never take the ones files need.
struct DescriptorBudget {
    /// The soft `RLIMIT_NOFILE` in force.
    let limit: Int

    /// Kept for everything else: the catalog, logs, builds reading sources and writing tiles,
    /// libvips's temporary files, the listening socket. A quarter of the limit, at most 256.
    var reserve: Int { min(256, limit / 4) }

    /// Open tile files kept by the open-file cache: an eighth of the limit, at most 1024.
    var openFiles: Int { max(16, min(1024, limit / 8)) }

    /// Connections that fit beside the cache and the reserve together with the server's slack for
    /// connections being closed (`ServerOptions.connectionSlack`: a sixteenth, at least 16); at most
    /// `wanted`, at least 16.
    func connections(wanted: Int) -> Int {
        let available = limit - openFiles - reserve
        return max(16, min(wanted, available - max(16, available / 17)))
    }
}
