#!/usr/bin/env python3
"""RecordKit benchmark: recordctl against FFmpeg's own command line, on the same display.

With the test rig (scripts/rig.sh) running, it puts moving content full screen (ffplay of a
1920x1080 testsrc2 pattern), then alternates, for --rounds rounds of --duration seconds each:

  A  ours    .build/release/recordctl record --duration D --output A.mp4
  B  ffmpeg  ffmpeg -f x11grab -framerate 30 -video_size 1920x1080 -i $DISPLAY
               -f pulse -i app_sink.monitor -f pulse -i mic_sink.monitor -map 0 -map 1 -map 2
               -c:v libx264 -preset veryfast -crf 23 -g 60 -pix_fmt yuv420p
               -c:a aac -b:a 160k -t D B.mp4

(the same encoder settings as recordctl's defaults: two separate AAC tracks). For each run it
measures the recorder's CPU seconds (user+sys from wait4's rusage: the process and the children
it reaped) per recorded second, its peak RSS, the X server's CPU over the run (from
/proc/<Xvfb>/stat; an MIT-SHM grab costs the X server CPU, not the recorder), and the frames in
the file against fps x duration (dropped = expected - got). It prints a table and the ratios
ours/ffmpeg; --json prints the same as JSON.

Every subprocess is bounded. A recorder that overruns gets SIGINT (to the process only, like
`timeout --foreground -s INT`: a process-group SIGINT makes ffmpeg see two and abort without
writing `moov`), then SIGKILL.

It also runs two recorders that stream and record at once, with the same encoder settings
(H.264 veryfast, bitrate = maxrate = 6 Mbit/s, one-second VBV, GOP 2 s, AAC 160k), and reads
back what the rig's nginx-rtmp recorded:

  ours-rtmp   recordctl record --duration D --output A.mp4 --rtmp $RK_RTMP_URL/KEY  (one encode)
  ffmpeg-tee  ffmpeg ... -c:v libx264 -preset veryfast -b:v 6M -maxrate 6M -bufsize 6M -g 60
                -f tee "[select=...]B.mp4|[f=flv:select=\'v:0,a:0\']rtmp://..."

The preview: `ours-preview` is `ours` plus --preview, watched for the whole run by
one headless Chromium viewer (scripts/preview_viewer.py, Selenium). With it in the list, a
200x200 window flashing white every 2.5 s (rk-testwindow --flash-every 2.5) sits over the
content for every recorder (the same picture for all), and the viewer timestamps each flash it
presents: the glass-to-glass delay (X11 change -> picture in the page) is printed, with the CPU
ratio ours-preview / ours and the frames the file dropped. The viewer's own CPU (Chromium's
processes, by type: scripts/chromium_cpu.py) is printed beside it, not counted as the recorder's.
The viewer runs as `recordctl preview --open` starts a browser (own session, nice 10, its
autogroup niced to 10; --viewer-priority normal runs it at the benchmark's own priority).

  scripts/benchmark.py --recorders ours,ours-preview --duration 30 --rounds 2

`ours-file-6m` is the file alone with the stream's video settings (`--bitrate 6M`, what the file
shares when `--rtmp` is added): ours-rtmp / ours-file-6m is what the stream itself adds at equal
video settings, where ours-rtmp / ours also counts a 6 Mbit/s encode against a CRF 23 one.

`ours-preview-socket` is the same with a viewer that reads the live WebSocket and decodes nothing
(standard library, in this script): the recorder's own cost of serving a viewer, without a
browser's decoding competing for the same 2 cores.

and --start-latency N, which times N `recordctl start` calls against a running service (each
followed by a discard or, every other one, a stop) and prints the distribution, what starting
the service adds, and when the file's first frame was captured against the moment the command
was issued (read from a counter window that steps every 5 ms).

--background-load N runs every recording next to N processes that each spin a CPU (they stop by
themselves): an overloaded machine. Each run then also shows its wall time (a recorder that runs
late takes longer than --duration) and its longest hold (the longest time one picture stays in
the file: a dropped frame, or a late recorder grabbing the same picture twice).

  scripts/benchmark.py --recorders ours,ffmpeg --rounds 2 --duration 20 --background-load 2

  scripts/benchmark.py                      # 2 rounds x 30 s, both recorders
  scripts/benchmark.py --recorders ours,ours-rtmp,ffmpeg,ffmpeg-tee
  scripts/benchmark.py --recorders ours --rounds 0 --start-latency 20
  scripts/benchmark.py --recorders ffmpeg   # only the FFmpeg reference
  scripts/benchmark.py --rounds 3 --json > bench.json

If no rig environment is set (RK_RIG_DIR, DISPLAY, PULSE_SERVER), it starts the rig and stops it
at the end. Python 3 standard library only.
"""

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcases import CASES, CaseContent
from benchlib import ROOT, log, die, run, load_rig, xvfb_pid, stop_process, run_recorder, picture_changes, ffmpeg_progress, mean, fmt, probe, BackgroundLoad



# FFmpeg's colour conversion at recordctl's settings: BT.709 limited range, bilinear (no
# resizing), tagged as such. FFmpeg's own default (BT.601, bicubic, untagged) is other settings:
# on saturated test patterns BT.709 costs ~10 % more bits (docs/ENCODING.md), so a size or CPU
# ratio against the default would compare different work.
# The recorders --recorders knows: recordctl's variants and FFmpeg's command lines.
OURS_RECORDERS = ("ours", "ours-rtmp", "ours-file-6m", "ours-replay", "ours-preview", "ours-preview-socket",
                  "ours-constant", "ours-variable")
PREVIEW_RECORDERS = ("ours-preview", "ours-preview-socket")
FFMPEG_RECORDERS = ("ffmpeg", "ffmpeg-tee")

FFMPEG_COLOUR = ["-vf", "scale=flags=bilinear:out_color_matrix=bt709:out_range=tv,format=yuv420p",
                 "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]


def recorder_command(name, args, env, out, progress, rtmp):
    """The command line of one recorder (see the module docstring)."""
    if name in OURS_RECORDERS:
        # Constant frame rate: x264 then runs with FFmpeg's options (look-ahead, B-frames, mbtree);
        # variable frame rate, recordctl's default, encodes with low delay (docs/ENCODING.md).
        cmd = [args.recordctl, "record", "--duration", str(args.duration), "--fps", str(args.fps),
               "--frame-rate-mode", "constant", "--output", out]
        if name == "ours-replay":
            return cmd + ["--replay-buffer", "30"]
        if name in PREVIEW_RECORDERS:
            return cmd + ["--preview"]
        if name == "ours-variable":  # ours-constant is ours, named for --cases tables
            return [a if a != "constant" else "variable" for a in cmd]
        if name == "ours-file-6m":
            return cmd + ["--bitrate", "6M"]  # the file alone with the stream's video settings
        return cmd + (["--rtmp", rtmp] if name == "ours-rtmp" else [])
    grab_in = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-progress", progress,
               "-f", "x11grab", "-framerate", str(args.fps), "-video_size", args.size, "-i", env["DISPLAY"],
               "-f", "pulse", "-i", "app_sink.monitor", "-f", "pulse", "-i", "mic_sink.monitor"]
    if name == "ffmpeg":
        return grab_in + ["-map", "0", "-map", "1", "-map", "2",
                          "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", str(2 * args.fps),
                          *FFMPEG_COLOUR, "-c:a", "aac", "-b:a", "160k", "-t", str(args.duration), out]
    # ffmpeg-tee: one encode for the file and the stream, the settings of recordctl's stream, and
    # the same outputs: the file keeps app and mic apart, the stream carries them mixed (amix
    # without normalisation, as recordctl's mixer sums them), so both encode three AAC tracks.
    return grab_in + ["-filter_complex", "[1:a][2:a]amix=inputs=2:normalize=0[mix]",
                     "-map", "0:v", "-map", "1:a", "-map", "2:a", "-map", "[mix]",
                     "-c:v", "libx264", "-preset", "veryfast", "-b:v", "6M", "-maxrate", "6M", "-bufsize", "6M",
                     "-g", str(2 * args.fps), *FFMPEG_COLOUR, "-c:a", "aac", "-b:a", "160k",
                     "-flags", "+global_header", "-t", str(args.duration), "-f", "tee",
                     f"[f=mp4:select=\\'v:0,a:0,a:1\\']{out}|[f=flv:select=\\'v:0,a:2\\':onfail=ignore]{rtmp}"]


def start_flasher(env, logdir):
    """A 200x200 window at (40, 40) flashing white every 2.5 s, over the content; returns
    (process, path of its stdout: `flash <CLOCK_MONOTONIC s>` lines)."""
    testwindow = os.path.join(ROOT, ".build/release/rk-testwindow")
    if not os.access(testwindow, os.X_OK):
        testwindow = os.path.join(ROOT, ".build/debug/rk-testwindow")
    out = os.path.join(logdir, "flasher.out")
    with open(out, "wb") as f:
        p = subprocess.Popen([testwindow, "--size", "200x200", "--position", "40,40", "--color", "000000",
                              # 2.5 s, longer than any delay seen: with flashes every 1 s a delay
                              # near 1 s read as ~0 (the page's white matched to the next flash).
                              "--flash-every", "2.5", "--flash-color", "FFFFFF", "--name", "rk-bench-flash"],
                             env=env, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.DEVNULL, start_new_session=True)
    return (p, out)


def read_live_socket(url, seconds):
    """Reads the preview's live WebSocket (handshake by hand, frames not even parsed) until it
    closes or `seconds` pass; returns the bytes read."""
    import socket
    hostport, token = url[len("http://"):].split("/?token=")
    host, port = hostport.split(":")
    s = socket.create_connection((host, int(port)), timeout=10)
    s.sendall(f"GET /live?token={token} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    total, deadline = 0, time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            data = s.recv(1 << 16)
            if not data:
                break
            total += len(data)
    except OSError:
        pass
    finally:
        s.close()
    return total


class PreviewViewer:
    """Waits (in a thread) for `recordctl record --preview` to print its page's URL in `logpath`,
    then watches it with scripts/preview_viewer.py until the recording ends."""

    def __init__(self, logpath, duration, env, browser=True, priority="low"):
        import threading
        self.output, self.error, self.browser, self.priority = None, None, browser, priority
        self.thread = threading.Thread(target=self._run, args=(logpath, duration, env), daemon=True)
        self.thread.start()

    def _run(self, logpath, duration, env):
        deadline = time.monotonic() + 30
        url = None
        while time.monotonic() < deadline and url is None:
            time.sleep(0.1)
            try:
                with open(logpath, "r", errors="replace") as f:
                    for line in f:
                        if "preview: http://127.0.0.1:" in line:
                            url = line.split("preview: ", 1)[1].strip()
            except FileNotFoundError:
                pass
        if url is None:
            self.error = "no preview URL in the recorder's output"
            return
        if not self.browser:
            try:
                self.output = {"bytes": read_live_socket(url, duration + 5)}
            except Exception as e:
                self.error = str(e)
            return
        viewer_env = {k: v for k, v in env.items() if k != "DISPLAY"}  # headless, never on the recorded display
        # `low`: as `recordctl preview --open` starts a browser (ViewerLauncher.swift): its own
        # session, nice 10, and that session's autogroup niced to 10 too.
        low = self.priority == "low"
        try:
            p = subprocess.Popen([sys.executable, os.path.join(ROOT, "scripts/preview_viewer.py"), url,
                                  "--seconds", str(max(1, duration - 6)), "--probe", "140,140"],
                                 env=viewer_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True, preexec_fn=(lambda: os.nice(10)) if low else None)
            if low:
                try:
                    with open(f"/proc/{p.pid}/autogroup", "w") as f:
                        f.write("10")
                except OSError:
                    pass
            try:
                stdout, stderr = p.communicate(timeout=duration + 90)
            except subprocess.TimeoutExpired:
                p.kill()
                stdout, stderr = p.communicate()
            self.output = json.loads(stdout.strip().splitlines()[-1]) if p.returncode == 0 else None
            if self.output is None:
                lines = [l for l in stderr.splitlines() if l.startswith("preview_viewer:")]
                self.error = lines[-1] if lines else stderr[-500:]
        except Exception as e:  # reported in the results, the run goes on
            self.error = str(e)

    def result(self, flasher):
        self.thread.join(timeout=120)
        if self.output is None:
            return {"viewer_error": self.error}
        if not self.browser:
            return {"viewer_bytes": self.output["bytes"]}
        flashes = []
        if flasher is not None:
            with open(flasher[1], "r") as f:
                flashes = [float(l.split()[1]) for l in f if l.startswith("flash ")]
        delays = []
        for t in self.output["seen"]:
            before = [f for f in flashes if f <= t]
            if before:
                delays.append(round(t - before[-1], 3))
        cpu = self.output.get("chromium_cpu") or {}
        secs = self.output.get("seconds") or None
        return {"viewer_presented": self.output["presented"], "viewer_dropped": self.output["dropped"],
                "viewer_played_s": self.output["played_s"], "glass_to_glass_s": delays,
                "viewer_priority": self.priority, "viewer_keyframe_requests": self.output.get("keyframe_requests"),
                "viewer_keyframe_only_s": self.output.get("keyframe_only_s"),
                "viewer_cpu_per_s": round(cpu["total"] / secs, 3) if secs and "total" in cpu else None,
                "viewer_cpu_by_process_per_s": {k: round(v / secs, 3) for k, v in cpu.items()} if secs else None,
                "glass_to_glass_median_s": sorted(delays)[len(delays) // 2] if delays else None}


def server_probe(env, key):
    """Frames in nginx-rtmp's recording of the stream `key` (RK_RTMP_REC_DIR), decoded."""
    d = env.get("RK_RTMP_REC_DIR")
    if not d:
        return {"server_frames": None}
    deadline = time.monotonic() + 10
    files = []
    while time.monotonic() < deadline:
        files = sorted(f for f in os.listdir(d) if f.startswith(key) and f.endswith(".flv"))
        if files:
            time.sleep(1.5)  # nginx closes it once the publisher left
            break
        time.sleep(0.3)
    if not files:
        return {"server_frames": 0}
    total = sum(probe(os.path.join(d, f), env)["frames"] for f in files)
    for f in files:
        os.unlink(os.path.join(d, f))
    return {"server_frames": total}


def side_by_side(args, env, out_dir):
    """Ours and FFmpeg recording the same region at the same time (so the same content), the same
    encoder settings; twice, swapping which starts first. Returns bitrates and ratios."""
    # The middle of the screen: testsrc2's moving parts (its top-left corner is static).
    region, size, offset = "960x540+480+270", "960x540", "+480,270"
    runs = []
    for first in ("ours", "ffmpeg"):
        a = os.path.join(out_dir, "side-ours.mp4")
        b = os.path.join(out_dir, "side-ffmpeg.mp4")
        ours = [args.recordctl, "record", "--duration", str(args.side_by_side), "--region", region, "--no-mic",
                "--no-app-audio", "--frame-rate-mode", "constant", "--crf", "23", "--preset", "veryfast", "--keyframe-interval", "2", "--output", a, "--overwrite"]
        ff = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "x11grab", "-framerate", str(args.fps),
              "-video_size", size, "-i", env["DISPLAY"] + offset, "-c:v", "libx264", "-preset", "veryfast", "-crf", "23",
              "-g", str(2 * args.fps), *FFMPEG_COLOUR, "-t", str(args.side_by_side), b]
        procs = []
        for cmd in ([ours, ff] if first == "ours" else [ff, ours]):
            procs.append(subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, start_new_session=True))
        for p in procs:
            try:
                p.wait(timeout=args.side_by_side + 60)
            except subprocess.TimeoutExpired:
                stop_process(p)
        pa, pb = probe(a, env), probe(b, env)
        ma, mb = pa.get("video_mbps"), pb.get("video_mbps")
        if not ma or not mb or not pa["frames"] or not pb["frames"]:
            log(f"side by side: no result ({pa}, {pb})")
            continue
        # Distinct pictures: a recorder whose grab falls before the player's update takes the same
        # picture twice (almost free to encode) and skips the next one, so bits per frame would
        # favour it; bits per distinct picture compare what was actually recorded.
        da, db = picture_changes(a, env)[0], picture_changes(b, env)[0]
        runs.append({"region": size, "seconds": args.side_by_side, "first": first, "ours_mbps": ma, "ffmpeg_mbps": mb,
                     "ours_frames": pa["frames"], "ffmpeg_frames": pb["frames"], "ratio": ma / mb,
                     "per_frame_ratio": (ma / pa["frames"]) / (mb / pb["frames"]),
                     "ours_distinct": da, "ffmpeg_distinct": db,
                     "per_distinct_ratio": (ma / da) / (mb / db) if da and db else None})
    return {"runs": runs}


def counter_value(path, env, band):
    """The frame counter (rk-testwindow --counter) in the first decoded frame of `path`, or None."""
    x, y, w, h = band
    cw, ch = 16 * 8, 8
    r = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-frames:v", "1",
                        "-vf", f"crop={w}:{h}:{x}:{y},scale={cw}:{ch}:flags=area,format=gray",
                        "-f", "rawvideo", "-pix_fmt", "gray", "-"], capture_output=True, timeout=60, env=env)
    data = r.stdout
    if len(data) < cw * ch:
        return None
    n = 0
    for i in range(16):
        v = data[4 * cw + 8 * i + 4]
        if 60 < v < 195:
            return None
        n = n << 1 | (1 if v >= 128 else 0)
    return n


def start_latency(args, env, out_dir):
    """Times `recordctl start` (to its return) N times with recordd running, and measures when
    the file's first frame was captured against the moment the command was issued: a window
    shows a counter that steps every 5 ms (rk-testwindow --counter 200), the recording is of
    the whole screen, and the first frame's counter says when it was captured. Every other
    start is stopped (its file read), the others discarded; one start with no service first."""
    runtime = f"/tmp/rk-bench-{os.getpid()}"
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    senv = {**env, "XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": os.path.join(out_dir, "state")}
    out = os.path.join(out_dir, "start-latency.mp4")
    ctl = args.recordctl
    testwindow = os.path.join(os.path.dirname(ctl), "rk-testwindow")
    rate = 200.0
    win_x, win_y, win_w, win_h = 40, 40, 320, 64
    window = subprocess.Popen([testwindow, "--size", f"{win_w}x{win_h}", "--position", f"{win_x},{win_y}",
                               "--counter", str(int(rate)), "--name", "rk-bench-counter"],
                              stdout=subprocess.PIPE, text=True, env=env)
    counter_start = None
    deadline = time.monotonic() + 15
    while counter_start is None and time.monotonic() < deadline:
        line = window.stdout.readline()
        if line.startswith("counter start "):
            counter_start = float(line.split()[2])
    if counter_start is None:
        window.kill()
        die("rk-testwindow --counter did not start")
    time.sleep(0.5)

    def timed_start(keep):
        t0 = time.monotonic()  # CLOCK_MONOTONIC, the clock rk-testwindow prints
        run([ctl, "start", "--output", out, "--overwrite"], timeout=60, env=senv)
        ms = (time.monotonic() - t0) * 1000
        if not keep:
            run([ctl, "discard"], timeout=60, env=senv)
            return ms, None
        time.sleep(0.7)
        run([ctl, "stop"], timeout=60, env=senv)
        n = counter_value(out, env, (win_x, win_y, win_w, win_h // 2))
        first = None if n is None else (counter_start + n / rate - t0) * 1000
        return ms, first

    try:
        cold, cold_first = timed_start(True)
        pairs = [timed_start(i % 2 == 0) for i in range(args.start_latency)]
    finally:
        run([ctl, "service", "stop"], timeout=30, env=senv, check=False)
        window.kill()
    samples = [ms for ms, _ in pairs]
    firsts = sorted(f for _, f in pairs if f is not None)
    xs = sorted(samples)
    return {"n": len(xs), "min": xs[0], "median": xs[len(xs) // 2], "p90": xs[min(len(xs) - 1, int(len(xs) * 0.9))],
            "max": xs[-1], "all": samples, "cold_ms": cold, "cold_first_frame_ms": cold_first,
            "first_frame_ms": firsts, "first_frame_unreadable": sum(1 for i, (_, f) in enumerate(pairs) if i % 2 == 0 and f is None)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2, help="rounds; each runs every recorder once (default 2)")
    ap.add_argument("--duration", type=int, default=30, help="seconds per recording (default 30)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="1920x1080", help="screen size of the rig (default 1920x1080)")
    ap.add_argument("--recorders", default="ours,ffmpeg",
                    help="comma list: ours, ours-replay (ours plus --replay-buffer 30: the buffer's cost), ffmpeg (default ours,ffmpeg)")
    ap.add_argument("--cases", default="moving",
                    help="comma list of screen contents: moving, still, mostly-still (scripts/benchcases.py; default moving); "
                         "runs are then labelled CASE:RECORDER, with CPU ratios to ffmpeg per case")
    ap.add_argument("--testwindow", default=os.path.join(ROOT, ".build/release/rk-testwindow"),
                    help="rk-testwindow binary for --cases mostly-still (default .build/release/rk-testwindow)")
    ap.add_argument("--recordctl", default=os.path.join(ROOT, ".build/release/recordctl"),
                    help="recordctl binary (default .build/release/recordctl)")
    ap.add_argument("--out-dir", default=None, help="where recordings go (default $RK_RIG_DIR/bench)")
    ap.add_argument("--keep", action="store_true", help="keep the recordings")
    ap.add_argument("--json", action="store_true", help="print results as JSON on stdout")
    ap.add_argument("--side-by-side", type=int, default=0, metavar="SECONDS",
                    help="also record the same 960x540 region (the screen's middle) with ours and FFmpeg at the same time (identical "
                         "content, CRF 23 veryfast GOP 60) and compare the video bitrates")
    ap.add_argument("--viewer-priority", choices=("low", "normal"), default="low",
                    help="ours-preview's Chromium viewer: low (default; as `recordctl preview --open` starts a browser: "
                         "own session, nice 10, autogroup nice 10) or normal (the benchmark's own priority)")
    ap.add_argument("--content-fps", type=int, default=None, metavar="N",
                    help="the moving content's own frame rate (default --fps); below the capture rate every picture "
                         "stays on screen for several ticks, so grab phase no longer decides which pictures a recorder gets")
    ap.add_argument("--background-load", type=int, default=0, metavar="N",
                    help="run every recording with N processes spinning a CPU each (an overloaded machine): "
                         "compare how late each recorder runs (wall time) and its longest hole")
    ap.add_argument("--start-latency", type=int, default=0, metavar="N",
                    help="also time N `recordctl start` calls with the service running")
    args = ap.parse_args()

    recorders = [r.strip() for r in args.recorders.split(",") if r.strip()]
    for r in recorders:
        if r not in OURS_RECORDERS + FFMPEG_RECORDERS:
            die(f"unknown recorder {r!r}")
    engine = os.path.join(os.path.dirname(args.recordctl), "recordctl-engine")
    if any(r.startswith("ours") for r in recorders) and not (os.access(args.recordctl, os.X_OK) and os.access(engine, os.X_OK)):
        die(f"{args.recordctl} or {engine} not found: swift build -c release --product recordctl; "
            f"swift build -c release --product recordctl-engine (or --recorders ffmpeg)")

    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    for c in cases:
        if c not in CASES:
            die(f"unknown case {c!r}")
    if "mostly-still" in cases and not os.access(args.testwindow, os.X_OK):
        die(f"{args.testwindow} not found: swift build -c release --product rk-testwindow")
    env, started_rig = load_rig(args)
    out_dir = args.out_dir or os.path.join(env["RK_RIG_DIR"], "bench")
    os.makedirs(out_dir, exist_ok=True)
    logdir = os.path.join(out_dir, "logs")
    os.makedirs(logdir, exist_ok=True)
    xpid = xvfb_pid(env)
    load = os.getloadavg()[0]
    if load > 0.5:
        log(f"warning: 1-minute load is {load:.2f} before starting: other work on this machine skews the numbers")
    content = None
    flasher = None
    results = []
    side = None
    try:
        flasher = None
        for case in cases:
          if content is not None:
              content.stop()
          content = CaseContent(case, env, args, logdir, args.testwindow)
          if flasher is None:
              flasher = start_flasher(env, logdir) if "ours-preview" in recorders else None
          for rnd in range(1, args.rounds + 1):
            for label in recorders:
                name = label
                if cases != ["moving"]:
                    label = f"{case}:{name}"
                out = os.path.join(out_dir, f"{label}-r{rnd}.mp4".replace(":", "-"))
                if os.path.exists(out):
                    os.unlink(out)
                progress = os.path.join(logdir, f"{label}-r{rnd}.progress".replace(":", "-"))
                key = f"testkey-bench-{name}-r{rnd}-{os.getpid()}"
                rtmp = f"{env.get('RK_RTMP_URL', '')}/{key}"
                cmd = recorder_command(name, args, env, out, progress, rtmp)
                log(f"round {rnd}/{args.rounds}: {label}: {shlex.join(cmd)}")
                viewer = PreviewViewer(os.path.join(logdir, f"{name}-r{rnd}.log"), args.duration, env,
                                       browser=name == "ours-preview", priority=args.viewer_priority) \
                    if name in PREVIEW_RECORDERS else None
                with BackgroundLoad(args.background_load, args.duration + 120):
                    m = run_recorder(f"{label}-r{rnd}".replace(":", "-"), cmd, env, args.duration, logdir, xpid, content.pid)
                if viewer is not None:
                    m.update(viewer.result(flasher))
                    if name == "ours-preview-socket":
                        log(f"  socket viewer: {m.get('viewer_bytes')} bytes read, {m.get('viewer_error') or 'ok'}")
                    else:
                        log(f"  preview viewer ({args.viewer_priority} priority): {m.get('viewer_presented')} frames presented, "
                            f"{m.get('viewer_dropped')} dropped by the page, {m.get('viewer_keyframe_requests')} times behind "
                            f"(key frames only for {fmt(m.get('viewer_keyframe_only_s'), '.1f')} s); "
                            f"Chromium {fmt(m.get('viewer_cpu_per_s'), '.3f')} CPU-s/s "
                            f"{m.get('viewer_cpu_by_process_per_s')}; glass-to-glass {fmt(m.get('glass_to_glass_median_s'), '.3f')} s "
                            f"median ({m.get('glass_to_glass_s')})")
                m.update(probe(out, env))
                m["distinct_frames"], m["longest_hold_s"] = picture_changes(out, env)
                if name in ("ours-rtmp", "ffmpeg-tee"):
                    m.update(server_probe(env, key))
                if name == "ffmpeg":
                    m.update(ffmpeg_progress(progress))
                expected = args.fps * args.duration
                secs = m["video_s"] or None
                m.update({
                    "recorder": label, "case": case, "round": rnd, "expected_frames": expected,
                    "dropped": expected - m["frames"],
                    "cpu_per_s": m["cpu_s"] / secs if secs else None,
                    "x_cpu_per_s": m["x_cpu_s"] / secs if secs and m["x_cpu_s"] is not None else None,
                })
                m["total_cpu_per_s"] = (m["cpu_per_s"] + m["x_cpu_per_s"]
                                        if m["cpu_per_s"] is not None and m["x_cpu_per_s"] is not None else None)
                log(f"  exit {m['exit']}, {m['frames']}/{expected} frames, "
                    f"{fmt(m['cpu_per_s'], '.3f')} CPU-s/s, peak {m['peak_rss_mb']:.0f} MB, "
                    f"X {fmt(m['x_cpu_per_s'], '.3f')} CPU-s/s, wall {m['wall_s']:.1f} s for {args.duration} s, "
                    f"{m['distinct_frames']} distinct pictures, longest hold {fmt((m['longest_hold_s'] or 0) * 1000, '.0f')} ms")
                if not args.keep and os.path.exists(out):
                    os.unlink(out)
                results.append(m)
        if args.side_by_side > 0:
            side = side_by_side(args, env, out_dir)  # needs the moving content
    finally:
        if content is not None:
            content.stop()
        if flasher is not None:
            stop_process(flasher[0], sig=signal.SIGTERM, grace=5)
        if started_rig:
            run(["bash", os.path.join(ROOT, "scripts/rig.sh"), "stop"], timeout=60, env=env, check=False,
                capture=False)

    labels = recorders if cases == ["moving"] else [f"{c}:{n}" for c in cases for n in recorders]
    summary = {}
    for name in labels:
        rs = [r for r in results if r["recorder"] == name]
        summary[name] = {k: mean([r.get(k) for r in rs]) for k in
                         ("cpu_per_s", "x_cpu_per_s", "total_cpu_per_s", "peak_rss_mb", "frames", "dropped",
                          "distinct_frames", "cpu_s", "wall_s", "file_mb", "video_mbps", "server_frames")}
        summary[name]["longest_hold_s"] = max((r.get("longest_hold_s") or 0 for r in rs), default=None)
        summary[name]["worst_dropped"] = max((r["dropped"] for r in rs), default=None)
        summary[name]["failed_runs"] = sum(1 for r in rs if r["exit"] != 0 or r.get("error"))
    ratios = {}
    for a_name, b_name in (("ours", "ffmpeg"), ("ours-rtmp", "ffmpeg-tee"), ("ours-rtmp", "ours"), ("ours-rtmp", "ours-file-6m")):
        if a_name in summary and b_name in summary:
            for k in ("cpu_per_s", "total_cpu_per_s", "peak_rss_mb", "video_mbps"):
                a, b = summary[a_name][k], summary[b_name][k]
                ratios[f"{a_name}/{b_name} {k}"] = a / b if a is not None and b else None
    if cases != ["moving"] and "ffmpeg" in recorders:  # per case: each of ours / ffmpeg
        for c in cases:
            for n in recorders:
                a, b = summary[f"{c}:{n}"]["cpu_per_s"], summary[f"{c}:ffmpeg"]["cpu_per_s"]
                if n != "ffmpeg":
                    ratios[f"{c}:{n}/ffmpeg cpu_per_s"] = a / b if a is not None and b else None
    latency = start_latency(args, env, out_dir) if args.start_latency > 0 else None

    replay_ratios = {}
    if "ours" in summary and "ours-replay" in summary:
        for k in ("cpu_per_s", "peak_rss_mb"):
            a, b = summary["ours-replay"][k], summary["ours"][k]
            replay_ratios[k] = a / b if a is not None and b else None
        log(f"replay buffer: CPU/s x{replay_ratios['cpu_per_s'] or float('nan'):.3f}, "
            f"peak RSS x{replay_ratios['peak_rss_mb'] or float('nan'):.3f} (ours-replay / ours)")

    preview_ratios = {}
    if "ours" in summary and "ours-preview-socket" in summary:
        for k in ("cpu_per_s", "peak_rss_mb"):
            a, b = summary["ours-preview-socket"][k], summary["ours"][k]
            preview_ratios["socket_" + k] = a / b if a is not None and b else None
        log(f"preview, socket viewer: CPU/s x{preview_ratios['socket_cpu_per_s'] or float('nan'):.3f}, "
            f"peak RSS x{preview_ratios['socket_peak_rss_mb'] or float('nan'):.3f} (ours-preview-socket / ours), "
            f"dropped {summary['ours-preview-socket']['dropped']} vs {summary['ours']['dropped']}")
    if "ours" in summary and "ours-preview" in summary:
        for k in ("cpu_per_s", "peak_rss_mb"):
            a, b = summary["ours-preview"][k], summary["ours"][k]
            preview_ratios[k] = a / b if a is not None and b else None
        delays = [d for r in results if r["recorder"] == "ours-preview" for d in (r.get("glass_to_glass_s") or [])]
        preview_ratios["glass_to_glass_median_s"] = sorted(delays)[len(delays) // 2] if delays else None
        vcpu = [r["viewer_cpu_per_s"] for r in results if r["recorder"] == "ours-preview" and r.get("viewer_cpu_per_s") is not None]
        preview_ratios["viewer_cpu_per_s_mean"] = mean(vcpu) if vcpu else None
        log(f"preview: CPU/s x{preview_ratios['cpu_per_s'] or float('nan'):.3f}, "
            f"peak RSS x{preview_ratios['peak_rss_mb'] or float('nan'):.3f} (ours-preview / ours), "
            f"dropped {summary['ours-preview']['dropped']} vs {summary['ours']['dropped']}, "
            f"glass-to-glass median {fmt(preview_ratios['glass_to_glass_median_s'], '.3f')} s over {len(delays)} flashes, "
            f"viewer (Chromium, {args.viewer_priority} priority) {fmt(preview_ratios['viewer_cpu_per_s_mean'], '.3f')} CPU-s/s")

    report = {
        "ratios_preview_over_ours": preview_ratios,
        "ratios_replay_over_ours": replay_ratios,
        "config": {"rounds": args.rounds, "duration_s": args.duration, "fps": args.fps, "size": args.size,
                   "display": env.get("DISPLAY"), "recorders": recorders, "cpus": os.cpu_count(),
                   "recordctl": args.recordctl if "ours" in recorders else None},
        "runs": results, "summary": summary, "ratios": ratios, "start_latency": latency, "side_by_side": side,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0

    print(f"\n{args.size} at {args.fps} fps, content {', '.join(cases)} (ffplay testsrc2), {args.duration} s per run, "
          f"{args.rounds} round(s), {os.cpu_count()} CPUs\n")
    hdr = (f"{'run':<27} {'exit':>4} {'frames':>11} {'drop':>5} {'distinct':>8} {'server':>6} {'CPU-s':>7} {'CPU-s/s':>8} "
           f"{'peak MB':>8} {'X CPU-s/s':>9} {'sum/s':>6} {'Mbit/s':>6} {'load':>5}")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        print(f"{r['recorder'] + '-r' + str(r['round']):<27} {r['exit']:>4} "
              f"{str(r['frames']) + '/' + str(r['expected_frames']):>11} {r['dropped']:>5} "
              f"{fmt(r['distinct_frames'], 'd'):>8} {fmt(r.get('server_frames'), 'd'):>6} {r['cpu_s']:>7.2f} "
              f"{fmt(r['cpu_per_s'], '.3f'):>8} {r['peak_rss_mb']:>8.0f} {fmt(r['x_cpu_per_s'], '.3f'):>9} "
              f"{fmt(r['total_cpu_per_s'], '.3f'):>6} {fmt(r.get('video_mbps'), '.2f'):>6} {r['load_1m_before']:>5.2f}"
              + (f"   ERROR: {r['error']}" if r.get("error") else ""))
    print()
    for name, s in summary.items():
        print(f"{name:<7} mean: {fmt(s['cpu_per_s'], '.3f')} CPU-s/s, peak {fmt(s['peak_rss_mb'], '.0f')} MB, "
              f"X server {fmt(s['x_cpu_per_s'], '.3f')} CPU-s/s, recorder+X {fmt(s['total_cpu_per_s'], '.3f')} CPU-s/s, "
              f"dropped {fmt(s['dropped'], '.1f')} (worst {s['worst_dropped']}), "
              f"distinct frames {fmt(s['distinct_frames'], '.1f')}, longest hold {fmt((s['longest_hold_s'] or 0) * 1000, '.0f')} ms, "
              f"wall {fmt(s['wall_s'], '.1f')} s per {args.duration} s recording, failed runs {s['failed_runs']}")
    if ratios:
        print("\nratios: " + ", ".join(f"{k} {fmt(v, '.2f')}" for k, v in ratios.items()))
    if side:
        for r in side["runs"]:
            print(f"\nside by side, {r['seconds']} s of {r['region']}: ours {r['ours_mbps']:.3f} Mbit/s "
                  f"({r['ours_frames']} frames, {r['ours_distinct']} distinct), FFmpeg {r['ffmpeg_mbps']:.3f} Mbit/s "
                  f"({r['ffmpeg_frames']} frames, {r['ffmpeg_distinct']} distinct), "
                  f"ratio {r['ratio']:.3f}, per frame {r['per_frame_ratio']:.3f}, "
                  f"per distinct picture {fmt(r['per_distinct_ratio'], '.3f')}")
    if latency:
        print(f"\nrecordctl start with the service running, {latency['n']} starts (ms): "
              f"min {latency['min']:.0f}, median {latency['median']:.0f}, p90 {latency['p90']:.0f}, max {latency['max']:.0f}; "
              f"all: {' '.join(f'{x:.0f}' for x in latency['all'])}")
        print(f"first start, service not running (includes starting recordd): {latency['cold_ms']:.0f} ms"
              f" (its first frame captured {fmt(latency['cold_first_frame_ms'], '.0f')} ms after the command)")
        ff = latency["first_frame_ms"]
        if ff:
            print(f"first frame in the file, captured after the command was issued, {len(ff)} starts (ms): "
                  f"min {ff[0]:.0f}, median {ff[len(ff) // 2]:.0f}, max {ff[-1]:.0f}; all: {' '.join(f'{x:.0f}' for x in ff)}"
                  + (f"; {latency['first_frame_unreadable']} unreadable" if latency["first_frame_unreadable"] else ""))
    return 0 if all(s["failed_runs"] == 0 for s in summary.values()) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
