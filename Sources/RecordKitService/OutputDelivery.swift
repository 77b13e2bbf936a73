import Foundation
import Glibc
import RecordKitSupport

/// Moves a finished recording to where `stop --output` asked, atomically: the destination
/// either does not exist or is the complete file, never a part of it, also across file systems
/// (copied to a hidden temporary file beside the destination, flushed to disk, then linked or
/// renamed into place). An existing destination is never replaced unless `overwrite`.
///
/// Blocking file I/O: called on the `stop` request's connection thread.
enum OutputDelivery {
    /// Checks, before anything stops, that `destination` can be written: an absolute path
    /// whose directory exists and is writable, not an existing file unless `overwrite`.
    static func check(_ destination: String, overwrite: Bool) throws(ControlError) {
        guard destination.hasPrefix("/") else {
            throw ControlError(.badArgument, "--output must be an absolute path, got '\(destination)'")
        }
        let directory = (destination as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ControlError(.cannotCreateOutput, "cannot deliver the recording to \(destination): the directory \(directory) does not exist; create it first")
        }
        guard access(directory, W_OK) == 0 else {
            throw ControlError(.cannotCreateOutput, "cannot deliver the recording to \(destination): \(directory) is not writable")
        }
        var st = stat()
        if lstat(destination, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw ControlError(.cannotCreateOutput, "cannot deliver the recording to \(destination): it is a directory; name a file")
            }
            if !overwrite {
                throw ControlError(.cannotCreateOutput, "\(destination) already exists; choose another path or add --overwrite")
            }
        }
    }

    /// Moves `source` to `destination`; on failure `source` is untouched and the error says where it is.
    static func move(_ source: String, to destination: String, overwrite: Bool) throws(ControlError) {
        if source == destination { return }
        let kept = "; the recording is kept at \(source)"
        // Same file system: one link (fails if the destination exists) or one rename.
        if overwrite {
            if rename(source, destination) == 0 { return }
        } else if link(source, destination) == 0 {
            unlink(source)
            return
        }
        let error = errno
        switch error {
        case EXDEV:
            break  // another file system: copy below
        case EEXIST:
            throw ControlError(.cannotCreateOutput, "\(destination) already exists (created meanwhile); add --overwrite to replace it" + kept)
        case EPERM, EOPNOTSUPP:
            // A file system without hard links: rename, after checking nobody created it.
            if overwrite {
                throw ControlError(.cannotCreateOutput, "cannot move the recording to \(destination): \(String(cString: strerror(error)))" + kept)
            }
            if access(destination, F_OK) == 0 {
                throw ControlError(.cannotCreateOutput, "\(destination) already exists; add --overwrite to replace it" + kept)
            }
            if rename(source, destination) == 0 { return }
            throw ControlError(.cannotCreateOutput, "cannot move the recording to \(destination): \(String(cString: strerror(errno)))" + kept)
        default:
            throw ControlError(.cannotCreateOutput, "cannot move the recording to \(destination): \(String(cString: strerror(error)))" + kept)
        }
        try copyAcrossFileSystems(source, to: destination, overwrite: overwrite, kept: kept)
        unlink(source)
    }

    /// Copies into a temporary file beside `destination`, which `AtomicFile` publishes: fsynced,
    /// then linked (no replace) or renamed (replace) into place, the directory fsynced.
    private static func copyAcrossFileSystems(_ source: String, to destination: String, overwrite: Bool, kept: String) throws(ControlError) {
        let directory = (destination as NSString).deletingLastPathComponent
        let name = (destination as NSString).lastPathComponent
        var template = Array("\(directory)/.\(name).recordkit-XXXXXX".utf8CString)
        let out = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard out >= 0 else {
            throw ControlError(.cannotCreateOutput, "cannot create a file in \(directory): \(String(cString: strerror(errno)))" + kept)
        }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        var closed = false
        defer { if !closed { close(out) } }
        func fail(_ what: String) -> ControlError {
            let message = String(cString: strerror(errno))
            unlink(temporary)
            return ControlError(.cannotCreateOutput, "cannot copy the recording to \(destination): \(what): \(message)" + kept)
        }
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw fail("cannot open \(source)") }
        defer { close(input) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; throw fail("reading") }
            if n == 0 { break }
            var written = 0
            while written < n {
                let w = buffer.withUnsafeBytes { write(out, $0.baseAddress! + written, n - written) }
                if w < 0 { if errno == EINTR { continue }; throw fail("writing") }
                written += w
            }
        }
        fchmod(out, 0o644 & ~currentUmask())
        closed = true
        close(out)
        do throws(FileSystemError) {
            try AtomicFile.publish(temporary: temporary, as: destination, replacing: overwrite)
        } catch {
            unlink(temporary)
            throw ControlError(.cannotCreateOutput, error.code == EEXIST && !overwrite
                               ? "\(destination) already exists (created meanwhile); add --overwrite to replace it" + kept
                               : "cannot copy the recording to \(destination): \(error)" + kept)
        }
    }

    private static func currentUmask() -> mode_t {
        let mask = umask(0o022)
        umask(mask)
        return mask
    }
}
