#!/usr/bin/env python3
"""What x264's look-ahead and B-frames cost a live stream (docs/BENCHMARKS.md, "Look-ahead on a
live stream"): the delay from the screen to a player reading the stream back from the rig's
nginx-rtmp, and whether nginx-rtmp and FFmpeg take B-frames in FLV with their composition times.

With the test rig (scripts/rig.sh) running, it shows the rate-distortion benchmark's moving pattern
(scripts/benchmark-rd.py: testsrc2 with a 16-cell binary frame counter at the top left) and, at
the same time:

  * a reference reader: FFmpeg's x11grab of the counter band at 60 fps, which notes when each
    counter value first appears on the screen (within a grab interval, 17 ms);
  * two recordings, each a file plus an RTMP stream to the rig's nginx-rtmp (one shared encode):
      lowdelay   `recordctl record` (variable frame rate: the stream's encode has low delay,
                 no B-frames, no look-ahead, sliced threads)
      lookahead  the same with --frame-rate-mode constant, whose encodes keep x264's
                 look-ahead, B-frames and frame threads (veryfast: bframes=3, rc_lookahead=10)
    On moving content (every picture changes) both capture every frame slot;
  * one player per stream: `ffmpeg -i rtmp://…` decoding the stream back from nginx as it
    arrives, noting when each counter value first comes out of the decoder.

Per stream: the delay of every counter value from the screen to the player (median, 90th
percentile) over the second half of the run (the player's start-up left out), and the difference between the two (what look-ahead and B-frames add). Then, from
nginx's own FLV recording of each stream: B-frames (pict_type), packets whose pts differs from
their dts (composition time offsets), and whether the decoded counters run in order with every
frame of the recorded file there.

  scripts/benchmark-stream-latency.py --duration 20
  scripts/benchmark-stream-latency.py --recordctl .build/release/recordctl --json

Python 3 standard library and FFmpeg's CLI only. Delays are wall-clock: quote the load.
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, log, die, load_rig, stop_process

_spec = importlib.util.spec_from_file_location("benchmark_rd", os.path.join(os.path.dirname(os.path.abspath(__file__)), "benchmark-rd.py"))
rd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rd)

BAND_W, BAND_H = rd.CELLS * rd.CELL, rd.CELL


def counter(frame):
    """The counter of one gray BAND_W x BAND_H frame (the cells' centres), or None when unreadable."""
    value = 0
    for i in range(rd.CELLS):
        x, y = i * rd.CELL + rd.CELL // 2, rd.CELL // 2
        level = frame[y * BAND_W + x]
        if 64 < level < 192:
            return None
        value = value * 2 + (1 if level >= 192 else 0)
    return value


class Reader:
    """Runs `cmd` (gray BAND_W x BAND_H raw frames on stdout) and notes the monotonic time at which
    each counter value first came out."""

    def __init__(self, name, cmd, env, logdir):
        self.name, self.first, self.frames = name, {}, 0
        self.log = open(os.path.join(logdir, f"reader-{name}.log"), "wb")
        self.proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.log,
                                     start_new_session=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        size = BAND_W * BAND_H
        while True:
            frame = self.proc.stdout.read(size)
            now = time.monotonic()
            if not frame or len(frame) < size:
                return
            self.frames += 1
            n = counter(frame)
            if n is not None and n not in self.first:
                self.first[n] = now

    def stop(self):
        stop_process(self.proc, grace=5)
        self.thread.join(timeout=5)


def player_command(url):
    # A player as FFmpeg's CLI is one: default probing, then packets decoded as they arrive (the
    # decoder holds has_b_frames pictures for reordering, as any player must).
    return ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-i", url, "-an",
            "-vf", f"crop={BAND_W}:{BAND_H}:0:0,format=gray", "-fps_mode", "passthrough",
            "-f", "rawvideo", "-flush_packets", "1", "-"]


def flv_check(path, mp4):
    """B-frames, pts/dts offsets and the decoded counters' order in nginx's FLV recording."""
    def probe(entries):
        out = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "json", path],
                             capture_output=True, timeout=120).stdout
        return json.loads(out or b"{}")
    info = probe("stream=has_b_frames")
    packets = probe("packet=pts,dts").get("packets", [])
    frames = probe("frame=pict_type").get("frames", [])
    dec = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-an", "-vf", f"crop={BAND_W}:{BAND_H}:0:0,format=gray",
                          "-fps_mode", "passthrough", "-f", "rawvideo", "-"], capture_output=True, timeout=300).stdout
    size = BAND_W * BAND_H
    counters = [counter(dec[i:i + size]) for i in range(0, len(dec) - size + 1, size)]
    readable = [c for c in counters if c is not None]
    backwards = sum(1 for a, b in zip(readable, readable[1:]) if b < a)
    repeated = sum(1 for a, b in zip(readable, readable[1:]) if b == a)
    file_frames = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                                  "stream=nb_read_packets", "-of", "csv=p=0", mp4], capture_output=True, timeout=120).stdout.decode().strip()
    return {"has_b_frames": (info.get("streams") or [{}])[0].get("has_b_frames"),
            "packets": len(packets), "pts_ne_dts": sum(1 for p in packets if p.get("pts") != p.get("dts")),
            "b_frames": sum(1 for f in frames if f.get("pict_type") == "B"),
            "decoded": len(counters), "unreadable": len(counters) - len(readable), "out_of_order": backwards, "repeated": repeated,
            "file_frames": int(file_frames) if file_frames.isdigit() else None}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=20, help="seconds recorded (default 20)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="640x360", help="the pattern's size, at the top left of the screen")
    ap.add_argument("--screen", default="1920x1080", help="the rig's screen size (default 1920x1080)")
    ap.add_argument("--recordctl", default=os.path.join(ROOT, ".build/debug/recordctl"))
    ap.add_argument("--out-dir", default=None, help="where files go (default $RK_RIG_DIR/bench-latency)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    env, _ = load_rig(args)
    out_dir = args.out_dir or os.path.join(env["RK_RIG_DIR"], "bench-latency")
    os.makedirs(out_dir, exist_ok=True)
    rtmp = env.get("RK_RTMP_URL") or die("RK_RTMP_URL is not set: source the rig's env")
    rec_dir = env.get("RK_RTMP_REC_DIR") or die("RK_RTMP_REC_DIR is not set")
    stamp = str(int(time.time()))
    variants = {"lowdelay": [], "lookahead": ["--frame-rate-mode", "constant"]}
    keys = {name: f"testkey-latency-{name}-{stamp}" for name in variants}
    content = rd.start_content(env, argparse.Namespace(size=args.size, screen=args.screen, fps=args.fps), out_dir)
    readers, recorders = {}, {}
    try:
        readers["screen"] = Reader("screen", ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-f", "x11grab",
                                              "-draw_mouse", "0", "-framerate", "60", "-video_size", f"{BAND_W}x{BAND_H}",
                                              "-i", env["DISPLAY"] + "+0,0", "-vf", "format=gray", "-f", "rawvideo",
                                              "-flush_packets", "1", "-"], env, out_dir)
        for name, extra in variants.items():
            cmd = [args.recordctl, "record", "--duration", str(args.duration), "--fps", str(args.fps), "--region", f"{args.size}+0+0",
                   "--no-mic", "--no-app-audio", "--no-cursor", "--output", os.path.join(out_dir, f"{name}.mp4"), "--overwrite",
                   "--rtmp", f"{rtmp}/{keys[name]}", *extra]
            logf = open(os.path.join(out_dir, f"record-{name}.log"), "wb")
            recorders[name] = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=logf, stderr=logf, start_new_session=True)
        time.sleep(3)  # the streams are published
        for name in variants:
            readers[name] = Reader(name, player_command(f"{rtmp}/{keys[name]}"), env, out_dir)
        deadline = time.monotonic() + args.duration + 60
        for name, p in recorders.items():
            p.wait(timeout=max(1, deadline - time.monotonic()))
            if p.returncode != 0:
                die(f"recordctl ({name}) exited {p.returncode}; see {out_dir}/record-{name}.log")
        time.sleep(2)
    finally:
        for r in readers.values():
            r.stop()
        for p in recorders.values():
            stop_process(p)
        stop_process(content)
    screen = readers["screen"].first
    result = {"load": open("/proc/loadavg").read().split()[:3], "duration": args.duration, "size": args.size}
    for name in variants:
        seen = readers[name].first
        if sum(1 for n in seen if n in screen) < 20:
            die(f"{name}: too few counter values both on the screen and in the stream; see {out_dir}")
        # The steady state: counters in the second half of the run (at first the player probes the
        # stream and then decodes what nginx sent meanwhile in a burst).
        ordered = sorted(n for n in seen if n in screen)
        later = ordered[len(ordered) // 2:]
        delays = sorted((seen[n] - screen[n]) * 1000 for n in later)
        flv = sorted(f for f in os.listdir(rec_dir) if f.startswith(keys[name]) and f.endswith(".flv"))
        result[name] = {"frames_matched": len(delays), "median_ms": round(statistics.median(delays), 1),
                        "p90_ms": round(delays[int(0.9 * (len(delays) - 1))], 1),
                        "flv": flv_check(os.path.join(rec_dir, flv[-1]), os.path.join(out_dir, f"{name}.mp4")) if flv else None}
    result["added_median_ms"] = round(result["lookahead"]["median_ms"] - result["lowdelay"]["median_ms"], 1)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"load {' '.join(result['load'])}, {args.duration} s of {args.size} at {args.fps} fps")
    for name in variants:
        r = result[name]
        print(f"{name:10} screen → player: median {r['median_ms']} ms, p90 {r['p90_ms']} ms over {r['frames_matched']} frames")
        if r["flv"]:
            f = r["flv"]
            print(f"{'':10} nginx's FLV: has_b_frames={f['has_b_frames']}, {f['b_frames']} B-frames, {f['pts_ne_dts']} of {f['packets']} "
                  f"packets with pts != dts; decoded {f['decoded']} frames ({f['unreadable']} unreadable, {f['out_of_order']} out of order, "
                  f"{f['repeated']} repeats of the picture before), "
                  f"file {f['file_frames']} frames")
    print(f"look-ahead and B-frames add {result['added_median_ms']} ms (median)")


if __name__ == "__main__":
    main()
