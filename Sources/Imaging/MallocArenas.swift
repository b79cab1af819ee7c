import CLibcShims
import Foundation

/// glibc's malloc arenas. By default a process gets up to eight per core, and each libvips worker
/// thread fills one of its own: strips freed in one arena are not reused by another thread, nor given
/// back, so a build's peak RSS grows with the number of threads that ever ran (168 MB against
/// dzsave's 125 MB on a 16384^2 image; 131 to 137 MB with two arenas; docs/benchmarks.md).
/// One arena does better still where one process builds many images: every arena's free space is its
/// own, so two of them peak at the sum of their own highs, and a folder of photos built in one process
/// peaked at 39 MB with two against 31-33 MB with one (dzsave on each: 30.8 MB); at 16384^2, 86 against
/// 92 MB. The threads then share one lock, taken only for blocks tcache does not hold.
public enum MallocArenas {
    /// Call before libvips starts its threads.
    public static func limit(to count: Int) {
        _ = ts_limit_malloc_arenas(Int32(count))
    }

    /// Blocks of `bytes` and more mapped on their own and given back when freed, whatever was freed before.
    ///
    /// glibc maps blocks of 128 KB and more, but the first such block freed raises that threshold to its size
    /// (up to 32 MB), and from then on libvips's region buffers (96-190 KB for a photo's strips, about 550 a
    /// photo) come from the heap, between the small blocks that outlive a build (libvips's objects, the
    /// catalog's, Swift's). A process that builds one photo after another then peaked higher with each (30 MB
    /// at the first, 32-33 MB from the twentieth with one arena) while a fresh `vips dzsave` peaks at 30.8 MB.
    /// Fixed at 64 KB, the buffers leave nothing behind (26-29 MB a photo); each costs its pages' first-touch
    /// faults: about 50 us of system time a 96 KB buffer here, 9,000 faults a photo, 200,000 at 16384^2
    /// (docs/benchmarks.md), which is why only a process building several images sets it. (What fragments the
    /// heap is the threads' tcache: small freed blocks each long-lived thread keeps, scattered over the pages
    /// of earlier strips; glibc.malloc.tcache_count=0 also kept a folder flat at 30.8 MB, but it can only be set
    /// in the environment before the process starts: `restartWithoutThreadCaches`.)
    public static func mapBlocks(from bytes: Int) {
        _ = ts_set_malloc_mmap_threshold(Int32(bytes))
    }

    /// The tunable that says how many small freed blocks each thread caches (tcache).
    static let threadCacheTunable = "glibc.malloc.tcache_count"

    /// What `tunables` (the value of GLIBC_TUNABLES) sets the threads' caches to: its last setting, as in glibc; nil
    /// where it says nothing of them.
    static func threadCacheSetting(_ tunables: String) -> Substring? {
        tunables.split(separator: ":").last { $0.hasPrefix(threadCacheTunable + "=") }?.dropFirst(threadCacheTunable.count + 1)
    }

    /// Whether `tunables` already says how many blocks a thread caches.
    static func setsThreadCaches(_ tunables: String) -> Bool { threadCacheSetting(tunables) != nil }

    /// Whether this process started with the threads' caches off.
    public static func threadCachesOff(tunables: String = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? "") -> Bool {
        threadCacheSetting(tunables) == "0"
    }

    /// Starts this program again, same arguments, with the threads' caches of small freed blocks off
    /// (`glibc.malloc.tcache_count=0` added to GLIBC_TUNABLES), unless the environment already says how many
    /// it caches. glibc reads its tunables once, as a process starts, so this is the only way to set it: for a
    /// process that builds one image after another, where those caches are what keeps earlier images' pages
    /// from being reused (`mapBlocks`). Call it before anything is written or started; it returns only when
    /// there is nothing to do or the program could not be started again (the build then goes on with them).
    /// Never from a process that hosts other work (a test runner): the process image is replaced.
    public static func restartWithoutThreadCaches(arguments: [String] = CommandLine.arguments) {
        let current = ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? ""
        guard !setsThreadCaches(current) else { return }
        let off = threadCacheTunable + "=0"
        setenv("GLIBC_TUNABLES", current.isEmpty ? off : current + ":" + off, 1)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &argv)
        // Not started again (no /proc, say): as before, with the caches.
        for pointer in argv { free(pointer) }
        if current.isEmpty { unsetenv("GLIBC_TUNABLES") } else { setenv("GLIBC_TUNABLES", current, 1) }
    }
}
