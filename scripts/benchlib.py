"""Helpers shared by scripts/benchmark.py (encoding, file + RTMP, start latency) and
scripts/benchmark-capture.py (still, mostly still and moving screens): running commands, reading
CPU time from /proc, the rig's environment, the moving content, stopping recorders, probing files."""

import json
import os
import shlex
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLK_TCK = os.sysconf("SC_CLK_TCK")
SDL_ENV = {"SDL_VIDEODRIVER": "x11", "SDL_RENDER_DRIVER": "software", "SDL_FRAMEBUFFER_ACCELERATION": "0"}

def log(msg):
    print(f"benchmark: {msg}", file=sys.stderr, flush=True)

def die(msg):
    log(f"error: {msg}")
    sys.exit(1)

def run(cmd, timeout, env=None, check=True, capture=True):
    """Runs cmd to completion, bounded; returns CompletedProcess."""
    try:
        p = subprocess.run(cmd, env=env, timeout=timeout, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                           stderr=subprocess.PIPE if capture else subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        die(f"timed out after {timeout} s: {shlex.join(cmd)}")
    if check and p.returncode != 0:
        err = p.stderr.decode(errors="replace")[-2000:] if capture else ""
        die(f"failed ({p.returncode}): {shlex.join(cmd)}\n{err}")
    return p

def proc_cpu_seconds(pid):
    """utime + stime of a running process, in seconds (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK  # fields 14, 15 of stat(5)
    except (OSError, IndexError, ValueError):
        return None

def load_rig(args):
    """The rig's environment; starts the rig if none is set. Returns (env, started)."""
    env = dict(os.environ)
    if env.get("RK_RIG_DIR") and env.get("DISPLAY") and env.get("PULSE_SERVER"):
        return env, False
    rig_dir = env.get("RK_RIG_DIR") or os.path.join(ROOT, "rig-run")
    env["RK_RIG_DIR"] = rig_dir
    log(f"no rig environment: starting the rig in {rig_dir}")
    run(["bash", os.path.join(ROOT, "scripts/rig.sh"), "start"], timeout=180, env=env, capture=False)
    with open(os.path.join(rig_dir, "env")) as f:
        for line in f:
            line = line.strip()
            if line.startswith("export ") and "=" in line:
                k, v = line[len("export "):].split("=", 1)
                env[k] = shlex.split(v)[0] if v else ""
    return env, True

def xvfb_pid(env):
    pid = env.get("RK_XVFB_PID")
    if not pid:
        try:
            with open(os.path.join(env["RK_RIG_DIR"], "pids", "xvfb.pid")) as f:
                pid = f.read().strip()
        except OSError:
            pid = None
    if not pid or proc_cpu_seconds(int(pid)) is None:
        die("cannot find the rig's Xvfb process (RK_XVFB_PID / $RK_RIG_DIR/pids/xvfb.pid)")
    return int(pid)

def grab(env, w, h):
    """One rgb24 frame of the whole display."""
    p = run(["ffmpeg", "-nostdin", "-v", "error", "-f", "x11grab", "-draw_mouse", "0",
             "-video_size", f"{w}x{h}", "-i", env["DISPLAY"], "-frames:v", "1",
             "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], timeout=30, env=env)
    return p.stdout

def start_content(env, args, logdir):
    """ffplay testsrc2 full screen; waits until it covers the screen and moves."""
    w, h = args.size.split("x")
    cmd = ["ffplay", "-hide_banner", "-loglevel", "error", "-f", "lavfi",
           "-i", f"testsrc2=size={args.size}:rate={getattr(args, 'content_fps', None) or args.fps}", "-fs", "-an",
           "-window_title", "rk-benchmark-content"]
    logf = open(os.path.join(logdir, "ffplay.log"), "wb")
    p = subprocess.Popen(cmd, env={**env, **SDL_ENV}, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                         start_new_session=True)
    deadline = time.monotonic() + 20
    last = None
    while time.monotonic() < deadline:
        time.sleep(0.5)
        if p.poll() is not None:
            die(f"ffplay exited ({p.returncode}); see {logf.name}")
        frame = grab(env, int(w), int(h))
        px = len(frame) // 3
        # Coverage: the pattern has no black areas, the empty rig desktop is all black.
        black = sum(1 for i in range(0, len(frame), 3 * 97)
                    if frame[i] < 16 and frame[i + 1] < 16 and frame[i + 2] < 16) / (px / 97)
        moving = last is not None and frame != last
        last = frame
        if black < 0.02 and moving:
            log(f"content: ffplay (pid {p.pid}) covers the screen ({black:.1%} black) and moves")
            return p
    stop_process(p, sig=signal.SIGTERM)
    die("ffplay did not cover the screen with moving content within 20 s")

def stop_process(p, sig=signal.SIGINT, grace=15):
    """Signals the process only (not its group), waits, then SIGKILL."""
    if p.poll() is None:
        try:
            os.kill(p.pid, sig)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)

def run_recorder(name, cmd, env, duration, logdir, xpid, content_pid):
    """Runs one recorder to completion (bounded); returns measurements."""
    logpath = os.path.join(logdir, f"{name}.log")
    x0, c0 = proc_cpu_seconds(xpid), proc_cpu_seconds(content_pid)
    load0 = os.getloadavg()[0]
    t0 = time.monotonic()
    with open(logpath, "wb") as logf:
        p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                             start_new_session=True)
    deadline = t0 + duration + 60  # start-up and finalizing get a minute
    status, rusage, signalled = None, None, None
    try:
        while True:
            pid, st, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                status, rusage = st, ru
                break
            now = time.monotonic()
            if now > deadline and signalled is None:
                log(f"{name} overran {duration + 60} s: SIGINT")
                os.kill(p.pid, signal.SIGINT)
                signalled, deadline = "SIGINT", now + 15
            elif now > deadline and signalled == "SIGINT":
                log(f"{name} ignored SIGINT: SIGKILL")
                os.kill(p.pid, signal.SIGKILL)
                signalled, deadline = "SIGKILL", now + 3600
            time.sleep(0.05)
    except KeyboardInterrupt:
        os.kill(p.pid, signal.SIGINT)
        _, status, rusage = os.wait4(p.pid, 0)
        raise
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # tell Popen it has been reaped
    x1, c1 = proc_cpu_seconds(xpid), proc_cpu_seconds(content_pid)
    return {
        "exit": p.returncode,
        "stopped_by": signalled,
        "wall_s": wall,
        "cpu_s": rusage.ru_utime + rusage.ru_stime,
        "user_s": rusage.ru_utime,
        "sys_s": rusage.ru_stime,
        "peak_rss_mb": rusage.ru_maxrss / 1024,
        "x_cpu_s": (x1 - x0) if x0 is not None and x1 is not None else None,
        "content_cpu_s": (c1 - c0) if c0 is not None and c1 is not None else None,
        "load_1m_before": load0,
        "load_1m_after": os.getloadavg()[0],
        "log": logpath,
    }

def picture_changes(path, env):
    """(distinct, longest_hold_s): frames that differ from the one before (decoded, md5 per
    frame), and the longest time one picture stays on screen in the file (from its pts to the
    next different picture's). The test pattern changes every frame, so a repeated frame means
    the recorder filled a gap with a copy, and a hold longer than a frame period is a hole: a
    dropped frame, or a recorder that ran late and grabbed the same picture twice."""
    if not os.path.exists(path):
        return None, None
    p = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", "0:v:0", "-f", "framemd5", "-"],
            timeout=600, env=env, check=False)
    if p.returncode != 0:
        return None, None
    count, last, tb, since, longest, pts = 0, None, None, None, 0.0, None
    for line in p.stdout.decode(errors="replace").splitlines():
        if line.startswith("#tb 0:"):
            num, den = line.split(":", 1)[1].strip().split("/")
            tb = int(num) / int(den)
        if line.startswith("#") or not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        md5, pts = fields[-1], int(fields[2]) * (tb or 0)
        if md5 != last:
            count += 1
            if since is not None:
                longest = max(longest, pts - since)
            since = pts
        last = md5
    return count, longest

def distinct_frames(path, env):
    """Frames that differ from the one before (see picture_changes)."""
    return picture_changes(path, env)[0]

class BackgroundLoad:
    """N processes that each spin one CPU at normal priority for at most `seconds` (they stop by
    themselves), to see how a recorder behaves when the machine cannot give it what it needs."""
    def __init__(self, n, seconds):
        self.n, self.seconds, self.procs = n, seconds, []

    def __enter__(self):
        spin = f"import time\nend = time.monotonic() + {self.seconds}\nwhile time.monotonic() < end: pass\n"
        self.procs = [subprocess.Popen([sys.executable, "-c", spin], stdin=subprocess.DEVNULL,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                      for _ in range(self.n)]
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait(timeout=10)
        return False

def ffmpeg_progress(path):
    """FFmpeg's own dup/drop counters from its -progress file (JSON only: with x11grab's wallclock
    timestamps FFmpeg 5.1 reports most frames as "dup" even on a static screen, so they are not a
    measure of lost frames; distinct_frames is)."""
    d = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.strip().split("=", 1)
                    d[k] = v
    except OSError:
        return {}
    return {"ffmpeg_dup": int(d.get("dup_frames", 0)), "ffmpeg_drop": int(d.get("drop_frames", 0))}

def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None

def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def probe(path, env):
    """Video frames, duration, size and bitrate, audio stream count, from ffprobe (frames counted by decoding)."""
    if not os.path.exists(path):
        return {"frames": 0, "video_s": 0.0, "audio_streams": 0, "error": "no output file"}
    p = run(["ffprobe", "-v", "error", "-count_frames", "-of", "json", "-show_entries",
             "stream=codec_type,codec_name,width,height,nb_read_frames,duration,bit_rate:format=duration", path],
            timeout=300, env=env, check=False)
    if p.returncode != 0:
        return {"frames": 0, "video_s": 0.0, "audio_streams": 0,
                "error": p.stderr.decode(errors="replace").strip()[-300:]}
    j = json.loads(p.stdout)
    streams = j.get("streams", [])
    video = [s for s in streams if s.get("codec_type") == "video"]
    audio = [s for s in streams if s.get("codec_type") == "audio"]
    v = video[0] if video else {}
    dur = v.get("duration") or j.get("format", {}).get("duration") or 0
    return {"frames": int(v.get("nb_read_frames", 0) or 0), "video_s": float(dur),
            "size": f"{v.get('width')}x{v.get('height')}" if v else None,
            "audio_streams": len(audio), "file_mb": os.path.getsize(path) / 1e6,
            "video_mbps": int(v["bit_rate"]) / 1e6 if v.get("bit_rate") not in (None, "N/A") else None}
