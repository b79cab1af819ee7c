#if canImport(Glibc)
import Catalog
import Foundation
import Glibc

/// Asks the kernel whether any process has a file open for writing, to prove that a file an inotify
/// event calls whole (closed after a write, renamed in, hard-linked in) is not still being written
/// through another descriptor: a second writer, or a copy hard-linked or renamed in mid-way.
///
/// The kernel grants a read lease (`F_SETLEASE`, `F_RDLCK`) only while no descriptor anywhere has the
/// file open for writing; the lease is given back at once. It needs the file to be the server's own
/// or `CAP_LEASE`, and a filesystem with leases (not every network or overlay filesystem); where it
/// cannot answer, the file waits for `--settle` as before.
enum WriterCheck {
    /// `F_SETLEASE` (F_LINUX_SPECIFIC_BASE + 0): Glibc shows it only to C built with _GNU_SOURCE.
    private static let setLease: Int32 = 1024

    /// The file's stamp if no process has it open for writing now; nil if one has, or the kernel cannot say.
    static func stampIfUnwritten(_ path: String) -> SourceFingerprint.Stamp? {
        ignoreLeaseBreaks
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard fcntl(fd, setLease, Int32(F_RDLCK)) == 0 else { return nil }  // EAGAIN: a writer has it open
        _ = fcntl(fd, setLease, Int32(F_UNLCK))
        return SourceFingerprint.Stamp(size: Int(info.st_size),
                                       modifiedNanoseconds: Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec))
    }

    /// A writer opening the file while the lease is held makes the kernel signal the holder with
    /// SIGIO, whose default action ends the process. Nothing in the server uses SIGIO: ignore it, once.
    private static let ignoreLeaseBreaks: Void = {
        signal(SIGIO, SIG_IGN)
    }()
}
#endif
