"""Screen contents for scripts/benchmark.py --cases: moving, still, mostly-still.

  moving        ffplay of a testsrc2 pattern, full screen, moving (benchlib.start_content)
  still         the same pattern frozen (ffplay stopped with SIGSTOP): nothing on screen changes
  mostly-still  the frozen pattern plus two rk-testwindow windows that change a 32x32 square:
                one every second (a clock, a blinking widget) and one five times a second
                (a typing terminal's cursor cell)

Restored from commit 8310715 (the case loop was lost in a later rewrite of benchmark.py).
"""
import os
import signal
import subprocess
import threading
import time

from benchlib import die, start_content, stop_process

CASES = ("moving", "still", "mostly-still")


def start_square_window(env, testwindow, logdir, name, size, position, every):
    """An rk-testwindow whose 32x32 square changes every `every` seconds (a mostly still screen)."""
    cmd = [testwindow, "--size", size, "--position", position, "--color", "3366CC",
           "--flash-color", "FFFFFF", "--name", name, "--square-every", str(every)]
    logf = open(os.path.join(logdir, f"{name}.log"), "wb")
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=logf,
                         start_new_session=True)
    line = p.stdout.readline().decode(errors="replace").strip()  # the window id once it is painted
    if not line.startswith("0x"):
        stop_process(p, sig=signal.SIGTERM, grace=5)
        die(f"{testwindow} did not start: {line!r}; see {logf.name}")
    # Keep draining its "square N T" lines so it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in p.stdout], daemon=True).start()
    return p


class CaseContent:
    """The screen content of one case; `pid` (the player) is measured like the X server."""

    def __init__(self, case, env, args, logdir, testwindow):
        self.case, self.procs = case, []
        self.player = start_content(env, args, logdir)
        time.sleep(2)  # let it settle
        if case in ("still", "mostly-still"):
            os.kill(self.player.pid, signal.SIGSTOP)  # the pattern freezes: nothing repaints it
            time.sleep(0.5)
        if case == "mostly-still":
            self.procs.append(start_square_window(env, testwindow, logdir, "rk-bench-clock", "400x300", "200,200", 1))
            self.procs.append(start_square_window(env, testwindow, logdir, "rk-bench-typing", "800x60", "200,600", 0.2))
            time.sleep(1)

    @property
    def pid(self):
        return self.player.pid

    def stop(self):
        for p in self.procs:
            stop_process(p, sig=signal.SIGTERM, grace=5)
        try:
            os.kill(self.player.pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
        stop_process(self.player, sig=signal.SIGTERM, grace=5)
