import Glibc
import RecordKit

/// The checks behind ``FileOutputOptions/validate()`` for one resolved path.
struct OutputPathCheck {
    /// The file to write.
    let path: String
    /// Whether an existing file may be replaced.
    let overwrite: Bool
    /// Whether a missing directory may be created (the default videos directory only).
    let createDirectory: Bool

    /// The directory that holds ``path``.
    var directory: String { PathName.directory(of: path) }

    /// Runs every check; see ``FileOutputOptions/validate()``.
    func run() throws(BroadcastError) {
        let directory = self.directory
        guard path.last != "/", !path.isEmpty else {
            throw BroadcastError(.invalidSetup, "\(path) names a directory, not a file; add a file name")
        }
        var info = stat()
        if stat(directory, &info) != 0 {
            let missing = errno
            if missing == ENOENT, createDirectory {
                if mkdir(directory, 0o755) != 0 && errno != EEXIST {
                    throw BroadcastError(.outputFailed, "creating the videos directory \(directory) failed: \(SystemError.current)")
                }
            } else if missing == ENOENT {
                throw BroadcastError(.outputFailed, "directory \(directory) does not exist; create it or choose another path")
            } else {
                throw BroadcastError(.outputFailed, "directory \(directory) cannot be used: \(SystemError.text(missing))")
            }
        } else if info.st_mode & S_IFMT != S_IFDIR {
            throw BroadcastError(.outputFailed, "\(directory) is not a directory")
        }

        var existing = stat()
        let exists = lstat(path, &existing) == 0
        if exists {
            if existing.st_mode & S_IFMT == S_IFDIR {
                throw BroadcastError(.invalidSetup, "\(path) is a directory; choose a file name")
            }
            if !overwrite {
                throw BroadcastError(.outputFailed, "\(path) exists; pass --overwrite to replace it")
            }
            if existing.st_mode & S_IFMT != S_IFREG {
                throw BroadcastError(.outputFailed, "\(path) exists and is not a regular file; it will not be replaced")
            }
        }
        if access(directory, W_OK) != 0 {
            throw BroadcastError(.outputFailed, "directory \(directory) is not writable: \(SystemError.current)")
        }
        if exists {
            let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
            if fd < 0 { throw BroadcastError(.outputFailed, "\(path) is not writable: \(SystemError.current)") }
            close(fd)
        } else {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd < 0 { throw BroadcastError(.outputFailed, "cannot create \(path): \(SystemError.current)") }
            close(fd)
            unlink(path)
        }
    }
}
