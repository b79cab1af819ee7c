import Foundation

/// Hands memory that large temporaries left free back to the system.
///
/// A full scan or a sort of a 100,000-image gallery builds tables of tens of megabytes and frees them;
/// glibc keeps the freed pages in its arenas (one per thread that allocated), where they count as the
/// process's resident memory until something reuses them. `malloc_trim` releases every whole free page
/// of every arena (docs/gallery-scale.md).
enum FreedMemory {
    static func returnToSystem() {
        guard let trim = mallocTrim else { return }
        _ = trim(0)
    }

    /// glibc's `malloc_trim` (<malloc.h>, which Swift's Glibc module leaves out), looked up once;
    /// nil on a C library without it.
    private static let mallocTrim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(nil, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()
}
