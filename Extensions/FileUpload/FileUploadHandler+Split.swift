import Dispatch
import RecordKit
import RecordKitMedia

/// Split files: opening a part, cutting at a key frame, finalizing a closed part off the
/// handler's serial path. Called on the handler's queue except where said.
extension FileUploadHandler {
    /// Where `part` is delivered: the destination itself for a recording never split, else
    /// `name-NNN.ext` (``PartNaming``).
    func destination(of part: FilePart) -> String {
        part.number == 1 && part.cutNs == nil ? outputPath : PartNaming.path(for: outputPath, part: part.number)
    }

    /// Opens part `number`, whose zero is `originNs` of broadcast time: in the working directory
    /// when there is one, else at its destination (the first part at the destination itself).
    /// A later part's destination must be free unless overwriting is allowed.
    func openPart(_ number: Int, originNs: Int64) throws(BroadcastError) -> FilePart {
        let directory = context?.workingDirectory
        let destination = number == 1 ? outputPath : PartNaming.path(for: outputPath, part: number)
        if number > 1 {
            try OutputPathCheck(path: destination, overwrite: options.overwrite, createDirectory: false).run()
        }
        let path = directory.map { PartNaming.workingFile(in: $0, part: number, fileExtension: options.container.fileExtension) } ?? destination
        let part = FilePart(number: number, writer: try FileWriter(path: path, container: options.container, streams: streams, displayPath: destination),
                            originNs: originNs)
        if directory != nil {
            part.noteName = RecoveryNote.fileName
            do throws(BroadcastError) { try writeNote(for: part, required: true) } catch {
                part.writer.abort()
                throw error
            }
        }
        return part
    }

    /// Writes (or rewrites) the recovery note of `part`, when the recording has a working
    /// directory. Only a note at start is `required`: later ones are refreshes.
    func writeNote(for part: FilePart, required: Bool = false) throws(BroadcastError) {
        guard let directory = context?.workingDirectory, let name = part.noteName else { return }
        let note = RecoveryNote(destination: destination(of: part), workingFile: part.writer.path, container: options.container,
                                markers: part.noteMarkers)
        do throws(BroadcastError) { try note.write(into: directory, as: name) } catch { if required { throw error } }
    }

    /// Non-throwing refresh of `part`'s note (a marker added, a split).
    func refreshNote(for part: FilePart) {
        try? writeNote(for: part, required: false)
    }

    /// Ends the current part at the key frame presented at `cutNs` and opens the next one,
    /// whose zero it is. The closed part keeps taking audio from before the cut; the waiting
    /// split requests are answered once it is finalized. When the next part cannot be opened,
    /// the recording goes on in the current part, the requests fail, and the policy stops.
    func split(at cutNs: Int64) {
        guard let old = current else { return }
        let waiting = pendingSplits
        pendingSplits = []
        if let closing { handOff(closing) }
        let directory = context?.workingDirectory
        let next: FilePart
        do throws(BroadcastError) {
            if old.number == 1 {
                try OutputPathCheck(path: PartNaming.path(for: outputPath, part: 1), overwrite: options.overwrite, createDirectory: false).run()
            }
            old.cutNs = cutNs
            // The closed part's own note first, then the next part's takes over the main one:
            // a crash in between finds the closed part's working file through both notes, and
            // the first delivery moves it (the second then finds nothing).
            if directory != nil {
                old.noteName = RecoveryNote.partFileName(old.number)
                refreshNote(for: old)
            }
            next = try openPart(old.number + 1, originNs: cutNs)
        } catch {
            if let directory, old.noteName != RecoveryNote.fileName, let name = old.noteName {
                RecoveryNote.remove(from: directory, name: name)
                old.noteName = RecoveryNote.fileName
            }
            old.cutNs = nil
            refreshNote(for: old)  // the main note names the part still being written
            autoSplit = false
            for completion in waiting { completion(.failure(error)) }
            context?.publish(serviceInfo: ["lastError": "not split: " + error.message])
            return
        }
        old.completions = waiting
        old.awaitingAudio = Set(streams.map(\.0).filter { $0 != .video })
        current = next
        closing = old
        context?.publish(serviceInfo: ["path": destination(of: next), "parts": String(next.number)])
        if old.awaitingAudio.isEmpty { handOff(old) }
    }

    /// Gives a closed part to the finalizer queue: trailer, chapters, delivery to
    /// `name-NNN.ext`, then a `file-part` event with its path and the answers to the split
    /// requests. A part that cannot be finalized stays where it is (recoverable) and the event
    /// `file-part-failed` says why; the recording goes on.
    func handOff(_ part: FilePart) {
        if closing === part { closing = nil }
        let next = current.map { self.destination(of: $0) } ?? ""
        let destination = self.destination(of: part)
        let container = options.container
        let faststart = options.faststart
        let directory = context?.workingDirectory
        let context = self.context
        let seconds = Double((part.cutNs ?? part.originNs) - part.originNs) / 1e9
        finalizer.async { [self] in
            do throws(BroadcastError) {
                try Self.finalize(part, to: destination, container: container, working: directory != nil, inPlace: true,
                                  faststart: faststart)
                if let directory, let name = part.noteName { RecoveryNote.remove(from: directory, name: name) }
                deliveredParts.withLock { $0.append(destination) }
                context?.publish(event: BroadcastEvent(kind: "file-part",
                                                       message: "part \(part.number) finalized: \(destination) (\(String(format: "%.3f", seconds)) s)",
                                                       path: destination))
                for completion in part.completions {
                    completion(.success(["path": destination, "part": String(part.number), "next": next, "seconds": String(format: "%.6f", seconds)]))
                }
            } catch {
                context?.publish(event: BroadcastEvent(kind: "file-part-failed", message: "part \(part.number): \(error.message)"))
                for completion in part.completions { completion(.failure(error)) }
            }
        }
    }

    /// Writes `part`'s trailer and delivers it to `destination` with its chapters: from a
    /// working file or another name, finalized and renamed (MP4; remuxed with its index first
    /// with `faststart`) or renamed (Matroska); in place, finalized where it is (MP4, when
    /// `inPlace`; ``MP4Finalizer``). Any thread that owns the part.
    static func finalize(_ part: FilePart, to destination: String, container: FileOutputOptions.Container,
                         working: Bool, inPlace: Bool, faststart: Bool) throws(BroadcastError) {
        let chapters = part.mediaChapters
        if container == .mkv { part.writer.addChapters(chapters) }
        // A closed part's video ends at the cut, where the next part's first picture shows, not
        // one frame after its own last picture (at variable frame rate up to half a second
        // earlier on a still screen): the parts add up to the recording and none overlaps the next.
        if let cut = part.cutNs { part.writer.videoEndNs = cut - part.originNs }
        var trailerError: BroadcastError?
        // After a write error the trailer usually fails too; the file still plays as it is.
        do throws(BroadcastError) { try part.writer.finish() } catch { trailerError = error }
        if working || part.writer.path != destination {
            try MP4Finalizer.deliver(part.writer.path, to: destination, mp4: container == .mp4,
                                     chapters: container == .mp4 ? chapters.coveringFromZero() : [], faststart: faststart,
                                     scanner: part.writer.scanner)
        } else if container == .mp4, inPlace, trailerError == nil {
            try MP4Finalizer.finalize(destination, chapters: chapters.coveringFromZero(), faststart: faststart,
                                      scanner: part.writer.scanner)
        }
        if let trailerError { throw trailerError }
    }
}
