import Testing
@testable import Imaging

/// A build of several images starts itself again with the threads' malloc caches off, unless the environment
/// already says how many they keep: reading GLIBC_TUNABLES right is what keeps that from looping or overriding.
@Suite struct MallocArenasTests {
    @Test func aSettingOfTheThreadCachesIsFoundAmongOtherTunables() {
        #expect(!MallocArenas.setsThreadCaches(""))
        #expect(!MallocArenas.setsThreadCaches("glibc.malloc.arena_max=2"))
        #expect(!MallocArenas.setsThreadCaches("glibc.malloc.tcache_max=0"))
        #expect(MallocArenas.setsThreadCaches("glibc.malloc.tcache_count=0"))
        #expect(MallocArenas.setsThreadCaches("glibc.malloc.arena_max=2:glibc.malloc.tcache_count=7"))
    }

    @Test func theCachesAreOffOnlyWhenTheLastSettingSaysZero() {
        #expect(!MallocArenas.threadCachesOff(tunables: ""))
        #expect(MallocArenas.threadCachesOff(tunables: "glibc.malloc.tcache_count=0"))
        #expect(MallocArenas.threadCachesOff(tunables: "glibc.malloc.arena_max=1:glibc.malloc.tcache_count=0"))
        #expect(!MallocArenas.threadCachesOff(tunables: "glibc.malloc.tcache_count=7"))
        #expect(!MallocArenas.threadCachesOff(tunables: "glibc.malloc.tcache_count=0:glibc.malloc.tcache_count=7"))
        #expect(!MallocArenas.threadCachesOff(tunables: "glibc.malloc.tcache_count=00x"))
    }
}
