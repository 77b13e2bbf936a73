import CFFmpeg

/// An owned `AVDictionary` of FFmpeg options, freed on deinit.
///
/// FFmpeg calls that take `AVDictionary **` consume the entries they recognise and leave the
/// rest; ``remainingKeys`` then names what nobody understood.
final class OptionDictionary {
    /// The dictionary, or nil when empty. Pass `&dictionary.pointer` to FFmpeg.
    var pointer: OpaquePointer?

    /// Creates a dictionary holding `options`.
    init(_ options: [String: String]) {
        for (key, value) in options.sorted(by: { $0.key < $1.key }) {
            av_dict_set(&pointer, key, value, 0)
        }
    }

    /// The keys still in the dictionary, sorted.
    var remainingKeys: [String] {
        var keys: [String] = []
        var entry: UnsafeMutablePointer<AVDictionaryEntry>? = nil
        while let next = av_dict_get(pointer, "", entry, AV_DICT_IGNORE_SUFFIX) {
            keys.append(String(cString: next.pointee.key))
            entry = next
        }
        return keys.sorted()
    }

    deinit { av_dict_free(&pointer) }
}
