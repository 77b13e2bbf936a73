import Foundation
import Glibc

/// A file written under a temporary name beside its destination and renamed into place only
/// when complete: ``commit()`` fsyncs the file, renames it over `destination` and fsyncs the
/// directory; ``discard()`` (or deinit without commit) removes it. Readers of `destination`
/// therefore see either nothing (or the previous file) or the whole new file, never a part.
///
/// Not thread-safe.
final class AtomicOutputFile {
    let destination: String
    /// Where the bytes go until ``commit()``: `.<name>.trim-<random>.part` in the same directory.
    let temporaryPath: String
    private var done = false

    /// Checks that `destination`'s directory exists and is writable; does not create anything.
    init(destination: String) throws(MovieTrimError) {
        let url = URL(fileURLWithPath: destination)
        let directory = url.deletingLastPathComponent().path
        var info = stat()
        guard stat(directory, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .outputUnwritable(path: destination, reason: "its directory \(directory) does not exist")
        }
        guard access(directory, W_OK) == 0 else {
            throw .outputUnwritable(path: destination, reason: "its directory \(directory) is not writable (\(String(cString: strerror(errno))))")
        }
        if stat(destination, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .outputUnwritable(path: destination, reason: "it is a directory")
        }
        self.destination = url.path
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        self.temporaryPath = directory + "/." + url.lastPathComponent + ".trim-" + random + ".part"
    }

    /// Makes the temporary file the destination (durably). With `replacing` false, an existing
    /// destination (even one created while the file was written) is an error and is left alone:
    /// the file is linked into place (`link` fails on an existing name) instead of renamed.
    func commit(replacing: Bool = true) throws(MovieTrimError) {
        let fd = open(temporaryPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .outputUnwritable(path: destination, reason: "reopening \(temporaryPath): \(String(cString: strerror(errno)))") }
        let synced = fsync(fd)
        close(fd)
        guard synced == 0 else { throw .outputUnwritable(path: destination, reason: "fsync: \(String(cString: strerror(errno)))") }
        if replacing {
            guard rename(temporaryPath, destination) == 0 else {
                throw .outputUnwritable(path: destination, reason: "renaming the finished file into place: \(String(cString: strerror(errno)))")
            }
        } else {
            guard link(temporaryPath, destination) == 0 else {
                let reason = errno == EEXIST ? "it exists; give another output or replace it"
                    : "linking the finished file into place: \(String(cString: strerror(errno)))"
                throw .outputUnwritable(path: destination, reason: reason)
            }
            unlink(temporaryPath)
        }
        done = true
        let directory = open(URL(fileURLWithPath: destination).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Removes the temporary file (nothing happens after a commit).
    func discard() {
        guard !done else { return }
        done = true
        unlink(temporaryPath)
    }

    deinit { discard() }
}
