import Glibc
import RecordKitExtensionSDK

/// Reads one extension directory (`manifest.json` plus the executable it names) into a
/// ``CatalogEntry``, usable or broken with a reason that says what to fix.
enum ExtensionDirectoryLoader {
    /// The manifest's file name inside an extension directory.
    static let manifestFile = "manifest.json"
    /// Manifests larger than this are refused (they are a few hundred bytes).
    static let maxManifestBytes = 256 * 1024

    /// Loads the extension in `directory`, found via `origin`.
    static func load(_ directory: String, origin: ExtensionOrigin) -> CatalogEntry {
        let dirName = String(directory.split(separator: "/").last ?? Substring(directory))
        let path = directory + "/" + manifestFile
        func broken(_ reason: String, name: String = dirName, version: String? = nil) -> CatalogEntry {
            CatalogEntry(name: name, version: version, origin: origin, directory: directory, state: .broken(reason: reason))
        }
        let bytes: [UInt8]
        switch readFile(path) {
        case .bytes(let b): bytes = b
        case .problem(let message): return broken(message)
        }
        let manifest: ExtensionManifest
        do throws(ManifestError) { manifest = try ExtensionManifest.parse(bytes, file: path) } catch {
            return broken(error.description, name: bestEffortName(bytes) ?? dirName)
        }
        switch manifest.entry {
        case .swiftTarget(let target):
            return broken("\(path): entry.swiftTarget \"\(target)\" is only for extensions built into recordctl; "
                          + "an installed extension names its program with entry.executable", name: manifest.name, version: manifest.version)
        case .executable(let relative):
            let executable = directory + "/" + relative
            var st = stat()
            guard stat(executable, &st) == 0 else {
                return broken("its executable \(executable) does not exist (entry.executable in \(path))", name: manifest.name, version: manifest.version)
            }
            guard (st.st_mode & S_IFMT) == S_IFREG, access(executable, X_OK) == 0 else {
                return broken("its executable \(executable) is not an executable file (chmod +x it)", name: manifest.name, version: manifest.version)
            }
            return CatalogEntry(name: manifest.name, version: manifest.version, origin: origin, directory: directory,
                                state: .usable(manifest, executable: executable))
        }
    }

    /// Whether `directory` holds a manifest (is an extension directory itself).
    static func isExtensionDirectory(_ directory: String) -> Bool {
        access(directory + "/" + manifestFile, F_OK) == 0
    }

    private enum ReadOutcome {
        case bytes([UInt8])
        case problem(String)
    }

    private static func readFile(_ path: String) -> ReadOutcome {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            return .problem(errno == ENOENT ? "no \(manifestFile) in its directory" : "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .problem("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return .bytes(bytes) }
            bytes += chunk[0..<n]
            if bytes.count > maxManifestBytes { return .problem("\(path) is larger than \(maxManifestBytes / 1024) KiB; it cannot be a manifest") }
        }
    }

    /// The `name` of a manifest that failed validation, when it has a plausible one.
    private static func bestEffortName(_ bytes: [UInt8]) -> String? {
        guard let name = (try? JSONParser.parse(bytes))?["name"]?.string, ExtensionManifest.isValidName(name) else { return nil }
        return name
    }
}
