/// Which PulseAudio source an ``AudioCaptureStream`` records.
///
/// App audio is recorded from the *monitor* of a sink (what is being played to it); microphone
/// audio from a source. Names are PulseAudio object names as `pactl list short sinks` /
/// `pactl list short sources` print them, not descriptions.
package enum AudioSourceSelector: Sendable, Equatable {
    /// The monitor of the server's default sink, resolved when the stream opens
    /// (`<default sink>.monitor`). Records everything played to the default output.
    case defaultSinkMonitor
    /// The monitor of the named sink (`<sink>.monitor`).
    case sinkMonitor(String)
    /// The server's default source (usually a microphone), resolved when the stream opens.
    case defaultSource
    /// The named source (which may itself be a monitor, e.g. `"alsa_output.x.monitor"`).
    case source(String)
    /// One application's sound: the monitors of its sink inputs, followed as it opens new ones
    /// (see ``ApplicationSelector``); silence while it plays nothing.
    case application(ApplicationSelector)
}
