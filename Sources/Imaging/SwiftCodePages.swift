import CShims

/// The Swift runtime's and Foundation's code pages resident in this process. A build touches about
/// 17 MB of them before its full pass (the catalog, the fingerprint, the preview) and hardly any
/// during it, yet they stay counted in its resident set through the pass: at the peak of a 16384^2
/// build they were the whole of its lead over `vips dzsave` (file-backed 45 MB against 28 MB, while
/// its anonymous memory was 91 MB against dzsave's 92 MB; docs/benchmarks.md).
public enum SwiftCodePages {
    /// Unmaps the resident code pages of the executable and of the Swift libraries from this process
    /// (`madvise(MADV_DONTNEED)` on their read-only executable mappings only, which are never
    /// written). Code that runs again is mapped back from the page cache on its first use, a minor
    /// fault per page. Returns the bytes of the ranges advised (not all were resident), or nil when
    /// /proc/self/maps cannot be read.
    @discardableResult
    public static func release() -> Int? {
        let released = ts_release_swift_code_pages()
        return released < 0 ? nil : released
    }
}
