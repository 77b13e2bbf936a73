/// The `start` fields a client of the control protocol sent for the capture options before the
/// capture sources declared them (`"region": "640x360+0+0"`, `"noMic": true`, `"camera": ""`,
/// docs/PROTOCOL.md): still accepted, as the same options typed on a command line, so that a
/// script written against the older protocol records what it asked for (and a malformed value is
/// `bad_argument`, as before) instead of having the field ignored.
///
/// Each field's option is its name in kebab case (`frameRateMode` is `--frame-rate-mode`): the
/// sources' declarations name their options after these fields, and the resolver checks the
/// words like any other, so nothing here knows what an option does.
enum StartArgumentsLegacyField: String, CodingKey, CaseIterable {
    case region, window, noCursor, monitor, frameRateMode, source
    case noMic, micOff, noAppAudio, appSink, micSource, appAudioFrom, requireAudio
    case camera, cameraPosition, cameraSize, cameraOff

    /// The words for the fields `decoder` holds, in declaration order: a true boolean is its
    /// option alone, a false one nothing, a string its option and the value.
    static func words(in decoder: any Decoder) throws -> [String] {
        let c = try decoder.container(keyedBy: StartArgumentsLegacyField.self)
        var words: [String] = []
        for field in allCases where c.contains(field) {
            if try c.decodeNil(forKey: field) { continue }
            if let on = try? c.decode(Bool.self, forKey: field) {
                if on { words.append(field.option) }
            } else {
                words += [field.option, try c.decode(String.self, forKey: field)]
            }
        }
        return words
    }

    /// `--` and the field's name in kebab case.
    var option: String {
        var result = "--"
        for c in rawValue {
            if c.isUppercase { result += "-" + c.lowercased() } else { result.append(c) }
        }
        return result
    }
}
