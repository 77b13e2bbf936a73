/// The names of the files a split recording is cut into (docs/recordctl/split.md): the
/// destination's name with `-001`, `-002`, … before its extension, so the parts sort in order
/// beside each other. A recording never split keeps the destination's own name.
enum PartNaming {
    /// `/v/talk.mp4`, part 2 → `/v/talk-002.mp4`; `/v/talk`, part 2 → `/v/talk-002`. Three
    /// digits, more beyond part 999.
    static func path(for destination: String, part: Int) -> String {
        let number = part < 10 ? "00\(part)" : part < 100 ? "0\(part)" : "\(part)"
        let name = PathName.lastComponent(of: destination)
        let prefix = String(destination.dropLast(name.utf8.count))
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return prefix + name[..<dot] + "-" + number + name[dot...]
        }
        return destination + "-" + number
    }

    /// The working file of part `part` in a working directory: `recording.mp4` for the first
    /// (as an unsplit recording), `recording-002.mp4`, … after it.
    static func workingFile(in directory: String, part: Int, fileExtension: String) -> String {
        part == 1 ? directory + "/recording." + fileExtension
            : directory + "/" + path(for: "recording." + fileExtension, part: part)
    }
}
