// rk-testwindow: a top-level X11 window of one known colour, for end-to-end tests.
//
//   rk-testwindow [--size WxH] [--position X,Y] [--color RRGGBB] [--name NAME]
//                 [--flash-every SECONDS] [--flash-color RRGGBB] [--square-every SECONDS]
//                 [--counter RATE]
//
// Opens $DISPLAY, maps the window (with size hints so a window manager honours the position),
// and once it is mapped and painted prints its id as `0x...` on stdout. Repaints on Expose and
// runs until killed. With --flash-every it fills the window with --flash-color for ~100 ms every
// SECONDS and prints `flash <CLOCK_MONOTONIC seconds>` for each flash, taken right after the X
// server has processed the fill (XSync), for audio/video sync tests. With --square-every it
// changes only a 32x32 square at (16,16) inside the window every SECONDS, alternating between
// --flash-color and black, and prints `square <n> <CLOCK_MONOTONIC seconds>` for each change
// (damage-driven capture tests: a mostly still window).
// With --counter RATE the top half of the window shows a frame counter n (n = 0, 1, 2, ... from
// the moment the id is printed, one step every 1/RATE s) as 16 equal cells side by side, most
// significant bit left, white for 1 and black for 0; the bottom half keeps --color. It prints
// `counter start <CLOCK_MONOTONIC seconds> rate <RATE>` once: n is shown from start + n/RATE.
// Tests read it back from every decoded frame (no frame lost or repeated at a cut or a join).
// If a window manager places the window elsewhere, it is moved back before its id is printed.
// Exit codes: 64 bad arguments, 69 display unavailable, 70 window could not be placed.
//
// Parts: Options.swift (the command line), Console.swift (output and exit), MonotonicTime.swift,
// WindowLoop.swift (the window and its event loop).

run(parseOptions())
