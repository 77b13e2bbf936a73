/// Why a capture source could not start or could not go on.
///
/// Shared by every capture source in this module (screen and audio). ``kind`` is stable and
/// meant for code (the command line maps it to an exit code); ``message`` is for people: it says
/// what failed, with which input, and what to do about it.
package struct CaptureError: Error, Sendable, CustomStringConvertible {
    /// The category of a ``CaptureError``. Raw values are stable identifiers (for logs and JSON).
    package enum Kind: String, Sendable {
        /// No X display: `DISPLAY` is unset, or the named display could not be opened.
        case noDisplay
        /// A capture region is malformed, empty, or does not lie inside the screen.
        case badRegion
        /// No window matches the requested id or name.
        case windowNotFound
        /// The window being captured was destroyed.
        case windowGone
        /// The X server refused a request, lost the connection, or uses an unsupported pixel layout.
        case xError
        /// No PulseAudio server could be reached.
        case noAudioServer
        /// The requested PulseAudio source, sink or application was not found.
        case audioSourceNotFound
        /// PulseAudio failed while capturing.
        case audioError
        /// No video source of the requested name is registered (``VideoSourceRegistry``).
        case unknownSource
        /// The ScreenCast portal (or the session bus, or PipeWire) cannot be reached, or it
        /// refused or cancelled the screen cast.
        case portalUnavailable
        /// The portal's screen cast failed or ended while recording (the session was closed,
        /// the compositor went away).
        case portalError
        /// No camera matches the requested name, or no camera exists (``CameraSourceRegistry``).
        case cameraNotFound
        /// The camera (or PipeWire behind it) cannot be opened, offers no usable format, or
        /// failed before its first frame.
        case cameraUnavailable
    }

    /// The category, for code that reacts to the failure.
    package var kind: Kind
    /// A sentence for people: what failed, with what input, and what to do.
    package var message: String

    /// Creates an error of `kind` explained by `message`.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The ``message``.
    package var description: String { message }
}
