import Foundation
import Glibc
import RecordKitSupport

/// A file written under a temporary name beside its destination and published only when
/// complete: ``commit()`` hands it to `AtomicFile` (fsync, rename or link, directory fsync); ``discard()`` (or deinit without commit) removes it. Readers of `destination`
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
        do throws(FileSystemError) {
            try AtomicFile.publish(temporary: temporaryPath, as: destination, replacing: replacing)
        } catch {
            let reason = error.code == EEXIST && !replacing ? "it exists; give another output or replace it" : error.description
            throw .outputUnwritable(path: destination, reason: reason)
        }
        done = true
    }

    /// Removes the temporary file (nothing happens after a commit).
    func discard() {
        guard !done else { return }
        done = true
        unlink(temporaryPath)
    }

    deinit { discard() }
}
