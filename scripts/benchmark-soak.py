#!/usr/bin/env python3
"""Soak benchmark (docs/BENCHMARKS.md, "Memory over time"): does a long recording stay flat? Not a CI test.

With the test rig (scripts/rig.sh) running (or it starts one), it puts moving content full
screen (ffplay of a 1920x1080 testsrc2 pattern, scripts/benchlib.py) and records it for
--minutes minutes (default 60) with a file, an RTMP stream to the rig's nginx-rtmp and a replay
buffer (--replay-buffer 60):

  recordctl record --output soak.mp4 --rtmp $RK_RTMP_URL/testkey-soak --replay-buffer 60

Every --sample-every seconds (default 60) it samples the recording process (recordctl becomes
recordctl-engine, same pid): resident memory (VmRSS), its anonymous part and the heap's share
(/proc/PID/smaps_rollup, /proc/PID/smaps [heap]), open file descriptors, threads, and the
process's CPU. At the end it sends SIGINT and times how long the recorder takes to exit (the
`stop` time), then checks the file: video frames against the recorded time, every audio
stream's end against the video's end (the A/V offset), and what the RTMP server recorded.

With --kill-at N it sends SIGKILL at minute N instead, and checks what the file holds after the
kill: the span of each stream against the time recorded (what a crash loses).

Prints one line per sample and a summary; --json writes everything to a file. Every
subprocess is bounded.

  scripts/benchmark-soak.py                       # 60 minutes
  scripts/benchmark-soak.py --minutes 15 --json soak.json
  scripts/benchmark-soak.py --minutes 5 --kill-at 4
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, log, die, run, load_rig, start_content, stop_process, proc_cpu_seconds


def status_fields(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads"):
                out[k] = int(v.split()[0])
    return out


def heap_kb(pid):
    """Resident kB of the [heap] mapping and of anonymous mappings (malloc arenas, x264)."""
    heap, anon_maps, cur = 0, 0, None
    try:
        with open(f"/proc/{pid}/smaps") as f:
            for line in f:
                parts = line.split()
                if parts and "-" in parts[0] and len(parts) >= 5 and not line.startswith(("Rss", "Size")):
                    cur = parts[5] if len(parts) >= 6 else ""
                elif line.startswith("Rss:"):
                    kb = int(parts[1])
                    if cur == "[heap]":
                        heap += kb
                    elif cur == "":
                        anon_maps += kb
    except OSError:
        pass
    return heap, anon_maps


def sample(pid, t0):
    s = status_fields(pid)
    heap, anon = heap_kb(pid)
    return {"t_s": round(time.monotonic() - t0, 1), "rss_mb": s["VmRSS"] / 1024, "anon_mb": s.get("RssAnon", 0) / 1024,
            "heap_mb": heap / 1024, "anon_maps_mb": anon / 1024, "fds": len(os.listdir(f"/proc/{pid}/fd")),
            "threads": s["Threads"], "cpu_s": proc_cpu_seconds(pid)}


def stream_ends(path, env):
    """[(index, codec_type, first_pts, end)] per stream from the packets."""
    p = run(["ffprobe", "-v", "error", "-show_entries", "packet=stream_index,pts_time,duration_time:stream=index,codec_type",
             "-of", "json", path], timeout=900, env=env, check=False)
    if p.returncode != 0:
        return []
    j = json.loads(p.stdout)
    kinds = {s["index"]: s["codec_type"] for s in j.get("streams", [])}
    spans = {}
    for q in j.get("packets", []):
        try:
            t = float(q["pts_time"])
            d = float(q.get("duration_time") or 0)
        except (KeyError, ValueError):
            continue
        i = q["stream_index"]
        lo, hi, n = spans.get(i, (t, t + d, 0))
        spans[i] = (min(lo, t), max(hi, t + d), n + 1)
    return [(i, kinds.get(i), lo, hi, n) for i, (lo, hi, n) in sorted(spans.items())]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--sample-every", type=float, default=60, help="seconds between samples (default 60)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--replay-buffer", type=int, default=60)
    ap.add_argument("--no-rtmp", action="store_true")
    ap.add_argument("--kill-at", type=float, default=None, metavar="MIN", help="SIGKILL at this minute instead of a stop")
    ap.add_argument("--recordctl", default=os.path.join(ROOT, ".build/release/recordctl"))
    ap.add_argument("--out-dir", default=None, help="default $RK_RIG_DIR/soak")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--json", default=None, metavar="FILE")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="set in the recorder's environment (A/B runs, e.g. MALLOC_ARENA_MAX=2)")
    args = ap.parse_args()
    env, started = load_rig(args)
    out_dir = args.out_dir or os.path.join(env["RK_RIG_DIR"], "soak")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, "soak.mp4")
    if os.path.exists(out):
        os.unlink(out)
    key = f"testkey-soak-{os.getpid()}"
    cmd = [args.recordctl, "record", "--fps", str(args.fps), "--output", out, "--replay-buffer", str(args.replay_buffer)]
    if not args.no_rtmp:
        cmd += ["--rtmp", f"{env['RK_RTMP_URL']}/{key}"]
    renv = dict(env)
    malloc_log = os.path.join(out_dir, "malloc.log")  # mallinfo2 at each 30 s trim (RecordingProcessMemory)
    if os.path.exists(malloc_log):
        os.unlink(malloc_log)
    renv["RK_MALLOC_LOG"] = malloc_log
    for item in args.env:
        k, _, v = item.partition("=")
        renv[k] = v
    content = start_content(env, args, out_dir)
    samples, result = [], {}
    logf = open(os.path.join(out_dir, "recordctl.log"), "wb")
    try:
        t0 = time.monotonic()
        rec = subprocess.Popen(cmd, env=renv, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, start_new_session=True)
        end_at = t0 + (args.kill_at if args.kill_at is not None else args.minutes) * 60
        next_sample = t0 + 5  # the first sample once it runs, then every --sample-every seconds
        while time.monotonic() < end_at:
            if rec.poll() is not None:
                die(f"the recorder ended early ({rec.returncode}); see {logf.name}")
            if time.monotonic() >= next_sample:
                s = sample(rec.pid, t0)
                samples.append(s)
                log(f"{s['t_s']:7.0f} s  RSS {s['rss_mb']:7.1f} MB (anon {s['anon_mb']:6.1f}, heap {s['heap_mb']:6.1f}, "
                    f"anon maps {s['anon_maps_mb']:6.1f})  fds {s['fds']:3d}  threads {s['threads']:3d}  "
                    f"CPU {s['cpu_s']:8.1f} s  load {os.getloadavg()[0]:.1f}")
                next_sample += args.sample_every if len(samples) > 1 else max(0, args.sample_every - 5)
            time.sleep(min(1.0, max(0.05, end_at - time.monotonic())))
        recorded = time.monotonic() - t0
        if args.kill_at is not None:
            os.kill(rec.pid, signal.SIGKILL)
            rec.wait(timeout=30)
            result["killed_at_s"] = recorded
        else:
            s = sample(rec.pid, t0)
            samples.append(s)
            ts = time.monotonic()
            os.kill(rec.pid, signal.SIGINT)
            try:
                rec.wait(timeout=300)
            except subprocess.TimeoutExpired:
                rec.kill()
                rec.wait(timeout=30)
            result["stop_s"] = time.monotonic() - ts
            result["exit"] = rec.returncode
            recorded = ts - t0
        result["recorded_s"] = recorded
    finally:
        stop_process(content, sig=signal.SIGTERM, grace=5)
        if rec.poll() is None:
            rec.kill()
    spans = stream_ends(out, env)  # packets, not decoded frames: decoding an hour takes minutes
    result["file_mb"] = os.path.getsize(out) / 1e6 if os.path.exists(out) else None
    result["streams"] = [{"index": i, "type": k, "first_s": lo, "end_s": hi, "packets": n} for i, k, lo, hi, n in spans]
    video = [s for s in result["streams"] if s["type"] == "video"]
    audio = [s for s in result["streams"] if s["type"] == "audio"]
    if video:
        v = video[0]
        result["video_frames"] = v["packets"]
        result["slots"] = round(recorded * args.fps)  # at variable frame rate frames follow the content
        result["av_end_offsets_ms"] = [round((a["end_s"] - v["end_s"]) * 1000, 1) for a in audio]
    if not args.no_rtmp:
        rec_dir = env.get("RK_RTMP_REC_DIR", os.path.join(env["RK_RIG_DIR"], "rtmp-rec"))
        flvs = sorted(f for f in os.listdir(rec_dir) if f.startswith(key)) if os.path.isdir(rec_dir) else []
        if flvs:
            sp = stream_ends(os.path.join(rec_dir, flvs[-1]), env)
            result["rtmp"] = [{"type": k, "end_s": hi - lo, "packets": n} for i, k, lo, hi, n in sp]
            if not args.keep:
                for f in flvs:
                    os.unlink(os.path.join(rec_dir, f))
    first = next((s for s in samples if s["t_s"] >= 60), samples[0] if samples else None)
    if first and samples:
        last = samples[-1]
        result["growth_after_first_minute"] = {"rss_mb": last["rss_mb"] - first["rss_mb"], "heap_mb": last["heap_mb"] - first["heap_mb"],
                                               "fds": last["fds"] - first["fds"], "threads": last["threads"] - first["threads"],
                                               "from_s": first["t_s"], "to_s": last["t_s"]}
    # What malloc's callers hold against what the arenas keep free, sampled at every trim: a
    # growing "held" is memory the recorder keeps; a growing RSS over a flat "held" is malloc's.
    try:
        with open(malloc_log) as f:
            rows = [tuple(float(x) for x in line.split()) for line in f if len(line.split()) == 4]
        result["malloc"] = [{"t_s": r[0], "held_mb": r[1] / 1e6, "free_mb": r[2] / 1e6, "own_maps_mb": r[3] / 1e6} for r in rows]
        # From the first minute to the last trim before the stop (the stop's teardown frees it all).
        after = [r for r in rows if 60 <= r[0] <= result["recorded_s"] - 1]
        if after:
            result["malloc_held_growth_after_first_minute_mb"] = (after[-1][1] - after[0][1]) / 1e6
            result["malloc_held_range_after_first_minute_mb"] = [min(r[1] for r in after) / 1e6, max(r[1] for r in after) / 1e6]
    except OSError:
        pass
    # The recorder's own count: frames captured and dropped by the encode stage (an overloaded
    # machine), so "every frame in the file" is packets == captured - dropped.
    try:
        import re
        with open(logf.name, errors="replace") as f:
            m = re.search(r"recorded ([\d.]+) s: (\d+) frames captured, (\d+) dropped", f.read())
        if m:
            result["recorder_captured"], result["recorder_dropped"] = int(m.group(2)), int(m.group(3))
            result["frames_missing_from_file"] = int(m.group(2)) - int(m.group(3)) - result.get("video_frames", 0)
    except OSError:
        pass
    result["samples"] = samples
    result["command"] = [c if "testkey" not in c else c.rsplit("/", 1)[0] + "/KEY" for c in cmd]
    result["load_1m_end"] = os.getloadavg()[0]
    print(json.dumps({k: v for k, v in result.items() if k not in ("samples", "malloc")}, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    if not args.keep and os.path.exists(out):
        os.unlink(out)
    if started:
        run(["bash", os.path.join(ROOT, "scripts/rig.sh"), "stop"], timeout=60, env=env, check=False)


if __name__ == "__main__":
    main()
