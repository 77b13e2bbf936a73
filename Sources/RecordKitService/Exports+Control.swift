// The control protocol's values (RecorderStatus, ExtensionRequest, StartArguments, …) live in
// RecordKitControl so the thin recordctl can link them without the engine (no FFmpeg, X11 or PulseAudio); importing
// RecordKitService still brings them, as before they moved.
@_exported import RecordKitControl
