#!/usr/bin/env python3
"""Rate-distortion benchmark (docs/ENCODING.md, "Quality per bit"): bits per quality of
recordctl against FFmpeg's CLI.

With the test rig (scripts/rig.sh) running, it shows a moving pattern full screen that carries
its own frame counter: ffplay of

  testsrc2=size=WxH:rate=FPS, a 16-cell binary counter of the frame number n drawn at the top
  left and again at the bottom left (white cell = 1, most significant bit left), format=bgr0

so the exact source picture of every recorded frame can be made again by FFmpeg from the same
filter graph. For every CRF (default 18, 23, 28) it starts the pattern and records --duration
seconds with every recorder at once (the same pictures at the same time: on a shared machine the
player's rate varies from run to run, so recordings made one after the other would compare
different content; --alternate does that anyway), then, per recorder:

  * decodes the file and reads both counters of every frame: a frame whose two counters differ
    is torn (its top and bottom come from different source pictures), a counter equal to the
    frame before is a duplicate, a step of more than one is a skipped source picture;
  * renders the source picture of every recorded frame (the counter's n) through the colour
    conversion both recorders use (bilinear, BT.709, limited range, yuv420p) and compares each
    recorded frame with it: FFmpeg's psnr and ssim filters, frame by frame;
  * reads the video bitrate (bytes of the video stream over its duration), and reports, per
    recorder, Mbit/s, PSNR (Y, and the mean of the per-frame averages), SSIM (All) and the
    recorder's CPU-s per recorded second; then the BD-rate of each recorder against `ffmpeg`
    over the CRFs (the rate difference at equal quality, piecewise linear in log rate, over the
    range where both curves have points), for PSNR-Y and for SSIM (as -10 log10(1 - SSIM)).

Recorders:
  ours           recordctl record (the default: variable frame rate), --crf C
  ours-constant  the same with --frame-rate-mode constant
  ours-lowdelay  variable frame rate with RECORDKIT_LOW_DELAY_FILES=1 (the encoder settings
                 files used to have: no B-frames, no look-ahead, no mbtree, sliced threads)
  ours-replay    ours with a 30 s replay buffer beside the file (`--replay-buffer 30`: one encode
                 shared by the file and the buffer, which both wait for the encoder: look-ahead)
  ours-replay-lowdelay
                 ours-replay with RECORDKIT_LOW_DELAY_FILES=1: the encode a file beside a replay
                 buffer had while the buffer counted as a live consumer (low delay)
  ffmpeg         ffmpeg -f x11grab -framerate FPS -draw_mouse 0 ... -c:v libx264 -preset veryfast
                 -crf C -g 2*FPS, recordctl's colour conversion (scripts/benchmark.py FFMPEG_COLOUR)

No audio on either side, no cursor. CPU and quality come from the same runs; run it alone
(`flock -o /work/coord/bench.lock`) when the CPU column matters.

  scripts/benchmark-rd.py                                   # ours, ours-constant, ffmpeg at 18/23/28
  scripts/benchmark-rd.py --recorders ours,ffmpeg --crfs 23 --duration 10 --keep
  scripts/benchmark-rd.py --json > rd.json

Python 3 standard library and FFmpeg's CLI only.
"""

import argparse
import json
import math
import os
import re
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, SDL_ENV, log, die, run, load_rig, xvfb_pid, stop_process, run_recorder, fmt, grab

CELLS, CELL = 16, 40  # counter cells and their size in pixels
FFMPEG_COLOUR = ["-vf", "scale=flags=bilinear:out_color_matrix=bt709:out_range=tv,format=yuv420p",
                 "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"]
REF_CONVERSION = "scale=flags=bilinear:out_color_matrix=bt709:out_range=tv,format=yuv420p"
RECORDERS = ("ours", "ours-constant", "ours-lowdelay", "ours-replay", "ours-replay-lowdelay", "ffmpeg")


def content_graph(size, fps):
    """The moving pattern with its frame counter at the top left and the bottom left."""
    w, h = (int(v) for v in size.split("x"))
    parts = [f"testsrc2=size={size}:rate={fps}"]
    for y in (0, h - CELL):
        parts.append(f"drawbox=x=0:y={y}:w={CELLS * CELL}:h={CELL}:color=black:t=fill")
        for i in range(CELLS):
            bit = 1 << (CELLS - 1 - i)
            parts.append(f"drawbox=x={i * CELL}:y={y}:w={CELL}:h={CELL}:color=white:t=fill"
                         f":enable='gt(bitand(n\\,{bit})\\,0)'")
    parts.append("format=bgr0")
    return ",".join(parts)


def start_content(env, args, logdir):
    """ffplay of the counter pattern, full screen; returns once it covers the screen and moves."""
    w, h = (int(v) for v in args.size.split("x"))
    place = ["-fs"] if args.size == args.screen else ["-noborder", "-left", "0", "-top", "0"]
    cmd = ["ffplay", "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i", content_graph(args.size, args.fps),
           *place, "-an", "-window_title", "rk-benchmark-rd-content"]
    logf = open(os.path.join(logdir, "ffplay-rd.log"), "wb")
    p = subprocess.Popen(cmd, env={**env, **SDL_ENV}, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                         start_new_session=True)
    deadline, last = time.monotonic() + 20, None
    while time.monotonic() < deadline:
        time.sleep(0.3)
        if p.poll() is not None:
            die(f"ffplay exited ({p.returncode}); see {logf.name}")
        frame = grab(env, w, h)  # the top-left w x h of the screen: where the pattern is
        px = len(frame) // 3
        black = sum(1 for i in range(0, len(frame), 3 * 97)
                    if frame[i] < 16 and frame[i + 1] < 16 and frame[i + 2] < 16) / (px / 97)
        if black < 0.35 and last is not None and frame != last:  # the counter bands are partly black
            return p
        last = frame
    stop_process(p, sig=signal.SIGTERM)
    die("ffplay did not cover the screen with the counter pattern within 20 s")


def recorder_command(name, args, env, crf, out):
    if name.startswith("ours"):
        cmd = [args.recordctl, "record", "--duration", str(args.duration), "--fps", str(args.fps), "--crf", str(crf),
               "--preset", args.preset, "--no-mic", "--no-app-audio", "--no-cursor", "--output", out, "--overwrite"]
        if args.size != args.screen:
            cmd += ["--region", f"{args.size}+0+0"]
        if name == "ours-constant":
            cmd += ["--frame-rate-mode", "constant"]
        if name.startswith("ours-replay"):
            cmd += ["--replay-buffer", "30"]
        return cmd
    return ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "x11grab", "-draw_mouse", "0",
            "-framerate", str(args.fps), "-video_size", args.size, "-i", env["DISPLAY"] + "+0,0",
            "-c:v", "libx264", "-preset", args.preset, "-crf", str(crf), "-g", str(2 * args.fps), *FFMPEG_COLOUR,
            "-t", str(args.duration), out]


def recorder_env(name, env):
    renv = dict(env)
    # "ours": the default (files keep look-ahead and B-frames), asked for explicitly;
    # "ours-lowdelay": the low-delay encode files had before (RECORDKIT_LOW_DELAY_FILES=1).
    renv["RECORDKIT_LOW_DELAY_FILES"] = "1" if name.endswith("-lowdelay") else "0"
    return renv


def run_together(cmds, envs, duration, logdir, crf):
    """Starts every recorder at once (the same content at the same time), waits for all
    (bounded); returns each one's exit, CPU seconds (rusage) and log path."""
    procs, logs = {}, {}
    for name, cmd in cmds.items():
        logs[name] = os.path.join(logdir, f"{name}-crf{crf}.log")
        with open(logs[name], "wb") as logf:
            procs[name] = subprocess.Popen(cmd, env=envs[name], stdin=subprocess.DEVNULL, stdout=logf, stderr=logf,
                                           start_new_session=True)
    results, deadline = {}, time.monotonic() + duration + 90
    while len(results) < len(procs):
        for name, p in procs.items():
            if name in results:
                continue
            pid, st, ru = os.wait4(p.pid, os.WNOHANG)
            if pid == p.pid:
                p.returncode = os.waitstatus_to_exitcode(st)
                results[name] = {"exit": p.returncode, "cpu_s": ru.ru_utime + ru.ru_stime, "log": logs[name],
                                 "load_1m_after": os.getloadavg()[0]}
            elif time.monotonic() > deadline:
                os.kill(p.pid, signal.SIGKILL)
        time.sleep(0.05)
    return results


def read_counters(path, args, env):
    """[(top, bottom)] per decoded frame, in presentation order; None for an unreadable counter."""
    w, h = (int(v) for v in args.size.split("x"))
    bw = CELLS * CELL
    graph = (f"[0:v]split[a][b];[a]crop={bw}:{CELL}:0:0[t];[b]crop={bw}:{CELL}:0:{h - CELL}[u];"
             f"[t][u]vstack,format=gray[o]")
    p = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-filter_complex", graph, "-map", "[o]",
             "-fps_mode", "passthrough", "-f", "rawvideo", "-"], timeout=600, env=env)
    data, size = p.stdout, bw * 2 * CELL
    out = []
    for start in range(0, len(data) - size + 1, size):
        pair = []
        for row in (CELL // 2, CELL + CELL // 2):
            n = 0
            for i in range(CELLS):
                v = data[start + row * bw + i * CELL + CELL // 2]
                if 60 < v < 195:
                    n = None
                    break
                n = n << 1 | (1 if v >= 128 else 0)
            pair.append(n)
        out.append(tuple(pair))
    return out


def compare(path, counters, args, env, workdir):
    """Per-frame PSNR and SSIM of the recording against the source pictures its counters name."""
    w, h = (int(v) for v in args.size.split("x"))
    frame_bytes = w * h * 3 // 2
    wanted, last = [], 0
    for top, bottom in counters:
        n = top if top is not None else bottom
        n = last if n is None else n
        wanted.append(n)
        last = n
    psnr_log, ssim_log = os.path.join(workdir, "psnr.log"), os.path.join(workdir, "ssim.log")
    graph = ("[0:v]format=yuv420p,settb=1/30,setpts=N[d];[1:v]settb=1/30,setpts=N[r];[d]split[d1][d2];[r]split[r1][r2];"
             f"[d1][r1]psnr=stats_file={psnr_log}[o1];[d2][r2]ssim=stats_file={ssim_log}[o2]")
    cmp_proc = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p",
                                 "-s", args.size, "-r", "30", "-i", "-", "-filter_complex", graph,
                                 "-map", "[o1]", "-f", "null", "-", "-map", "[o2]", "-f", "null", "-"],
                                env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    gen = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", content_graph(args.size, args.fps),
                            "-frames:v", str(max(wanted) + 1), "-vf", REF_CONVERSION, "-f", "rawvideo", "-"],
                           env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    err = []
    reader = threading.Thread(target=lambda: err.append(cmp_proc.stderr.read()), daemon=True)
    reader.start()
    cache, next_n = {}, 0
    try:
        for n in wanted:
            while next_n <= n:
                buf = gen.stdout.read(frame_bytes)
                if len(buf) < frame_bytes:
                    die(f"reference generator ended at frame {next_n}")
                cache[next_n] = buf
                next_n += 1
            for k in [k for k in cache if k < n - 30]:
                del cache[k]
            cmp_proc.stdin.write(cache.get(n) or cache[max(cache)])
        cmp_proc.stdin.close()
    except BrokenPipeError:
        pass
    gen.kill()
    gen.wait()
    cmp_proc.wait(timeout=600)
    reader.join(timeout=10)
    if cmp_proc.returncode != 0:
        die(f"comparison failed: {(err[0] if err else b'').decode(errors='replace')[-1000:]}")
    psnr_y, psnr_avg, mse_y = [], [], []
    with open(psnr_log) as f:
        for line in f:
            d = dict(kv.split(":", 1) for kv in line.split() if ":" in kv)
            mse_y.append(float(d["mse_y"]))
            psnr_avg.append(float(d["psnr_avg"]) if d["psnr_avg"] != "inf" else 100.0)
            psnr_y.append(float(d["psnr_y"]) if d["psnr_y"] != "inf" else 100.0)
    ssim_all, ssim_y = [], []
    with open(ssim_log) as f:
        for line in f:
            m = re.search(r"Y:([\d.]+).*All:([\d.]+)", line)
            if m:
                ssim_y.append(float(m.group(1)))
                ssim_all.append(float(m.group(2)))
    return {"psnr_y": sum(psnr_y) / len(psnr_y), "psnr_avg": sum(psnr_avg) / len(psnr_avg),
            "psnr_y_worst": min(psnr_y), "ssim": sum(ssim_all) / len(ssim_all), "ssim_y": sum(ssim_y) / len(ssim_y),
            "ssim_worst": min(ssim_all), "compared": len(psnr_y)}


def video_stats(path, env):
    """Video bytes, duration, packets, bitrate, x264 options and colour tags of `path`."""
    p = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
             "packet=size,pts_time:stream=color_range,color_space,color_primaries,color_transfer,chroma_location",
             "-of", "json", path], timeout=300, env=env)
    j = json.loads(p.stdout)
    packets = j.get("packets", [])
    times = sorted(float(q["pts_time"]) for q in packets if q.get("pts_time") not in (None, "N/A"))
    total = sum(int(q["size"]) for q in packets)
    duration = (times[-1] - times[0]) + (times[-1] - times[-2] if len(times) > 1 else 0) if times else 0
    stream = (j.get("streams") or [{}])[0]
    with open(path, "rb") as f:
        blob = f.read(4 << 20)
    m = re.search(rb"options: ([ -~]+)", blob)
    return {"video_bytes": total, "video_s": duration, "packets": len(packets),
            "mbps": total * 8 / duration / 1e6 if duration else None,
            "tags": {k: stream.get(k) for k in ("color_range", "color_space", "color_primaries", "color_transfer", "chroma_location")},
            "x264": m.group(1).decode() if m else None}


def sequence_stats(counters):
    torn = sum(1 for t, b in counters if t is not None and b is not None and t != b)
    unreadable = sum(1 for t, b in counters if t is None and b is None)
    seq = [t if t is not None else b for t, b in counters]
    seq = [n for n in seq if n is not None]
    dups = sum(1 for a, b in zip(seq, seq[1:]) if b == a)
    skipped = sum(b - a - 1 for a, b in zip(seq, seq[1:]) if b > a + 1)
    backwards = sum(1 for a, b in zip(seq, seq[1:]) if b < a)
    return {"frames": len(counters), "torn": torn, "unreadable": unreadable, "duplicates": dups,
            "skipped_sources": skipped, "backwards": backwards, "distinct": len(set(seq))}


def bd_rate(ref, test, key):
    """Mean rate difference of `test` against `ref` at equal quality (percent), piecewise linear
    in log rate over the overlapping quality range; None when the ranges do not overlap."""
    def curve(points):
        pts = sorted((q[key], math.log(q["mbps"])) for q in points if q.get("mbps") and q.get(key) is not None)
        return pts
    a, b = curve(ref), curve(test)
    if len(a) < 2 or len(b) < 2:
        return None
    lo, hi = max(a[0][0], b[0][0]), min(a[-1][0], b[-1][0])
    if hi <= lo:
        return None

    def interp(pts, x):
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            if x0 <= x <= x1:
                return y0 + (y1 - y0) * (x - x0) / (x1 - x0) if x1 > x0 else y0
        return pts[0][1] if x < pts[0][0] else pts[-1][1]
    steps = 200
    diff = sum(interp(b, lo + (hi - lo) * (i + 0.5) / steps) - interp(a, lo + (hi - lo) * (i + 0.5) / steps)
               for i in range(steps)) / steps
    return (math.exp(diff) - 1) * 100


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--recorders", default="ours,ours-constant,ffmpeg", help=f"comma-separated, of {', '.join(RECORDERS)}")
    ap.add_argument("--crfs", default="18,23,28")
    ap.add_argument("--duration", type=int, default=8, help="seconds per recording (default 8)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="1920x1080", help="the pattern's size; smaller than --screen: a window at the "
                    "top left, and the recorders record that region (default 1920x1080, full screen)")
    ap.add_argument("--screen", default="1920x1080", help="the rig's screen size (default 1920x1080)")
    ap.add_argument("--alternate", action="store_true",
                    help="record one after the other (each alone on the machine) instead of all at once on the same content")
    ap.add_argument("--preset", default="veryfast")
    ap.add_argument("--recordctl", default=os.path.join(ROOT, ".build/release/recordctl"))
    ap.add_argument("--out-dir", default=None, help="where recordings go (default $RK_RIG_DIR/bench-rd)")
    ap.add_argument("--keep", action="store_true", help="keep the recordings")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    recorders = [r.strip() for r in args.recorders.split(",") if r.strip()]
    for r in recorders:
        if r not in RECORDERS:
            die(f"unknown recorder {r}; use {', '.join(RECORDERS)}")
    crfs = [int(c) for c in args.crfs.split(",")]
    env, started = load_rig(args)
    out_dir = args.out_dir or os.path.join(env["RK_RIG_DIR"], "bench-rd")
    os.makedirs(out_dir, exist_ok=True)
    xpid = xvfb_pid(env)
    results = []
    try:
        for crf in crfs:
            outs = {name: os.path.join(out_dir, f"{name}-crf{crf}.mp4") for name in recorders}
            for out in outs.values():
                if os.path.exists(out):
                    os.unlink(out)
            player = start_content(env, args, out_dir)
            time.sleep(1)
            try:
                if args.alternate:
                    runs = {name: run_recorder(f"{name}-crf{crf}", recorder_command(name, args, env, crf, outs[name]),
                                               recorder_env(name, env), args.duration, out_dir, xpid, player.pid)
                            for name in recorders}
                else:
                    runs = run_together({name: recorder_command(name, args, env, crf, outs[name]) for name in recorders},
                                        {name: recorder_env(name, env) for name in recorders}, args.duration, out_dir, crf)
            finally:
                stop_process(player, sig=signal.SIGTERM, grace=5)
            for name in recorders:
                out, m = outs[name], runs[name]
                if m["exit"] != 0 or not os.path.exists(out):
                    die(f"{name} at CRF {crf} failed ({m['exit']}); see {m['log']}")
                counters = read_counters(out, args, env)
                r = {"recorder": name, "crf": crf, "cpu_per_s": m["cpu_s"] / args.duration, "load": m["load_1m_after"],
                     **video_stats(out, env), **sequence_stats(counters), **compare(out, counters, args, env, out_dir)}
                results.append(r)
                log(f"{name} crf {crf}: {fmt(r['mbps'], '.3f')} Mbit/s, PSNR-Y {r['psnr_y']:.2f} dB, SSIM {r['ssim']:.5f}, "
                    f"{r['frames']} frames ({r['torn']} torn, {r['duplicates']} dup, {r['skipped_sources']} skipped), "
                    f"CPU {r['cpu_per_s']:.3f}")
                if not args.keep:
                    os.unlink(out)
    finally:
        if started:
            run(["bash", os.path.join(ROOT, "scripts/rig.sh"), "stop"], timeout=60, env=env, check=False)
    summary = {}
    for r in results:
        r["ssim_db"] = -10 * math.log10(max(1e-9, 1 - r["ssim"]))
    pairs = [(name, "ffmpeg") for name in recorders if name != "ffmpeg" and "ffmpeg" in recorders]
    for name, against in (("ours", "ours-lowdelay"), ("ours-replay", "ours-replay-lowdelay")):
        if name in recorders and against in recorders:
            pairs.append((name, against))
    for name, against in pairs:
        ref = [r for r in results if r["recorder"] == against]
        test = [r for r in results if r["recorder"] == name]
        summary[f"{name} against {against}"] = {
            "bd_rate_psnr_y_pct": bd_rate(ref, test, "psnr_y"), "bd_rate_ssim_pct": bd_rate(ref, test, "ssim_db"),
            "rate_ratio_by_crf": {t["crf"]: t["mbps"] / f["mbps"] for t in test for f in ref
                                                   if t["crf"] == f["crf"] and f["mbps"]},
                             "cpu_ratio_by_crf": {t["crf"]: t["cpu_per_s"] / f["cpu_per_s"] for t in test for f in ref
                                                  if t["crf"] == f["crf"] and f["cpu_per_s"]}}
    if args.json:
        print(json.dumps({"results": results, "bd_rates": summary}, indent=2))
        return
    print(f"{'recorder':<20} {'crf':>3} {'Mbit/s':>7} {'PSNR-Y':>7} {'PSNR':>6} {'SSIM':>8} {'worst':>7} {'frames':>6} "
          f"{'torn':>4} {'dup':>4} {'skip':>4} {'CPU/s':>6}  x264")
    for r in results:
        print(f"{r['recorder']:<20} {r['crf']:>3} {fmt(r['mbps'], '7.3f')} {r['psnr_y']:7.2f} {r['psnr_avg']:6.2f} "
              f"{r['ssim']:8.5f} {r['ssim_worst']:7.4f} {r['frames']:>6} {r['torn']:>4} {r['duplicates']:>4} "
              f"{r['skipped_sources']:>4} {r['cpu_per_s']:6.3f}  "
              f"{' '.join(o for o in (r['x264'] or '').split() if o.split('=')[0] in ('bframes', 'rc_lookahead', 'mbtree', 'sliced_threads', 'threads'))}")
    for name, s in summary.items():
        print(f"{name}: BD-rate {fmt(s['bd_rate_psnr_y_pct'], '+.1f')} % (PSNR-Y), "
              f"{fmt(s['bd_rate_ssim_pct'], '+.1f')} % (SSIM); rate ratio by CRF "
              + ", ".join(f"{c}: {v:.3f}" for c, v in s["rate_ratio_by_crf"].items())
              + "; CPU ratio by CRF " + ", ".join(f"{c}: {v:.2f}" for c, v in s["cpu_ratio_by_crf"].items()))
    tags = {r["recorder"]: r["tags"] for r in results}
    print("colour tags: " + "; ".join(f"{k}: {v}" for k, v in tags.items()))
    print("load (1 min) after each run: " + ", ".join(f"{r['load']:.1f}" for r in results))


if __name__ == "__main__":
    main()
