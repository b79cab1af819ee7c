import CLibcShims

/// glibc's malloc arenas. By default a process gets up to eight per core, and each libvips worker
/// thread fills one of its own: strips freed in one arena are not reused by another thread, nor given
/// back, so a build's peak RSS grows with the number of threads that ever ran (168 MB against
/// dzsave's 125 MB on a 16384^2 image; 131 to 137 MB with two arenas; docs/benchmarks.md).
public enum MallocArenas {
    /// Call before libvips starts its threads.
    public static func limit(to count: Int) {
        _ = ts_limit_malloc_arenas(Int32(count))
    }
}
