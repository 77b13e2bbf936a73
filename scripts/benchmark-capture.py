#!/usr/bin/env python3
"""RecordKit capture benchmark: recordctl against FFmpeg's own command line, on the
same display, for still, mostly still and moving content (damage-driven capture, frame-rate
modes). scripts/benchmark.py measures encoding (file + RTMP, FFmpeg's tee, start latency); the
two share their approach and will become one script.

With the test rig (scripts/rig.sh) running, it puts content on the screen for each case of
--cases (default: still, mostly-still, moving):

  moving        ffplay of a 1920x1080 testsrc2 pattern, full screen, moving
  still         the same pattern frozen (ffplay stopped with SIGSTOP): nothing on screen changes
  mostly-still  the frozen pattern plus two rk-testwindow windows that change a 32x32 square:
                one every second (a clock, a blinking widget) and one five times a second
                (a typing terminal's cursor cell)

then, per case, alternates for --rounds rounds of --duration seconds each:

  A  ours    .build/release/recordctl record --duration D --output A.mp4
  B  ffmpeg  ffmpeg -f x11grab -framerate 30 -video_size 1920x1080 -i $DISPLAY
               -f pulse -i app_sink.monitor -f pulse -i mic_sink.monitor -map 0 -map 1 -map 2
               -c:v libx264 -preset veryfast -crf 23 -g 60 -pix_fmt yuv420p
               -c:a aac -b:a 160k -t D B.mp4

(the same encoder settings as recordctl's defaults: two separate AAC tracks). Recorders
"ours-constant" and "ours-variable" run recordctl with --frame-rate-mode constant / variable
("ours" uses recordctl's default). For each run it
measures the recorder's CPU seconds (user+sys from wait4's rusage: the process and the children
it reaped) per recorded second, its peak RSS, the X server's CPU over the run (from
/proc/<Xvfb>/stat; an MIT-SHM grab costs the X server CPU, not the recorder), and the frames in
the file against fps x duration (dropped = expected - got). It prints a table and the ratios
ours/ffmpeg per case (one run, side by side); --json prints the same as JSON.

Every subprocess is bounded. A recorder that overruns gets SIGINT (to the process only, like
`timeout --foreground -s INT`: a process-group SIGINT makes ffmpeg see two and abort without
writing `moov`), then SIGKILL.

  scripts/benchmark.py                      # 2 rounds x 30 s, both recorders, every case
  scripts/benchmark.py --cases still,mostly-still --recorders ours,ours-constant,ffmpeg
  scripts/benchmark.py --recorders ffmpeg   # only the FFmpeg reference
  scripts/benchmark.py --rounds 3 --json > bench.json

If no rig environment is set (RK_RIG_DIR, DISPLAY, PULSE_SERVER), it starts the rig and stops it
at the end. Python 3 standard library only.
"""

import argparse
import json
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchcases import CaseContent
from benchlib import ROOT, log, die, run, load_rig, xvfb_pid, run_recorder, distinct_frames, ffmpeg_progress, mean, fmt, probe


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=2, help="rounds; each runs every recorder once (default 2)")
    ap.add_argument("--duration", type=int, default=30, help="seconds per recording (default 30)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="1920x1080", help="screen size of the rig (default 1920x1080)")
    ap.add_argument("--recorders", default="ours,ffmpeg",
                    help="comma list: ours, ours-constant, ours-variable, ffmpeg (default ours,ffmpeg)")
    ap.add_argument("--cases", default="still,mostly-still,moving",
                    help="comma list of screen contents: still, mostly-still, moving (default all three)")
    ap.add_argument("--testwindow", default=os.path.join(ROOT, ".build/release/rk-testwindow"),
                    help="rk-testwindow binary for mostly-still (default .build/release/rk-testwindow)")
    ap.add_argument("--recordctl", default=os.path.join(ROOT, ".build/release/recordctl"),
                    help="recordctl binary (default .build/release/recordctl)")
    ap.add_argument("--out-dir", default=None, help="where recordings go (default $RK_RIG_DIR/bench)")
    ap.add_argument("--keep", action="store_true", help="keep the recordings")
    ap.add_argument("--json", action="store_true", help="print results as JSON on stdout")
    args = ap.parse_args()

    recorders = [r.strip() for r in args.recorders.split(",") if r.strip()]
    for r in recorders:
        if r not in ("ours", "ours-constant", "ours-variable", "ffmpeg"):
            die(f"unknown recorder {r!r}")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    for c in cases:
        if c not in ("still", "mostly-still", "moving"):
            die(f"unknown case {c!r}")
    if "mostly-still" in cases and not os.access(args.testwindow, os.X_OK):
        die(f"{args.testwindow} not found: swift build -c release --product rk-testwindow")
    engine = os.path.join(os.path.dirname(args.recordctl), "recordctl-engine")
    if any(r.startswith("ours") for r in recorders) and not (os.access(args.recordctl, os.X_OK) and os.access(engine, os.X_OK)):
        die(f"{args.recordctl} or {engine} not found: swift build -c release --product recordctl; "
            f"swift build -c release --product recordctl-engine (or --recorders ffmpeg)")

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
    results = []
    try:
        for case in cases:
            content = CaseContent(case, env, args, logdir, args.testwindow)
            for rnd in range(1, args.rounds + 1):
                for name in recorders:
                    out = os.path.join(out_dir, f"{case}-{name}-r{rnd}.mp4")
                    if os.path.exists(out):
                        os.unlink(out)
                    progress = os.path.join(logdir, f"{case}-{name}-r{rnd}.progress")
                    if name.startswith("ours"):
                        cmd = [args.recordctl, "record", "--duration", str(args.duration), "--fps", str(args.fps),
                               "--output", out]
                        if name != "ours":
                            cmd += ["--frame-rate-mode", name.split("-", 1)[1]]
                    else:
                        cmd = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y",
                               "-progress", progress,
                               "-f", "x11grab", "-framerate", str(args.fps), "-video_size", args.size,
                               "-i", env["DISPLAY"],
                               "-f", "pulse", "-i", "app_sink.monitor", "-f", "pulse", "-i", "mic_sink.monitor",
                               "-map", "0", "-map", "1", "-map", "2",
                               "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", str(2 * args.fps),
                               "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "160k", "-t", str(args.duration), out]
                    log(f"{case}, round {rnd}/{args.rounds}: {name}: {shlex.join(cmd)}")
                    m = run_recorder(f"{case}-{name}-r{rnd}", cmd, env, args.duration, logdir, xpid, content.pid)
                    m.update(probe(out, env))
                    m["distinct_frames"] = distinct_frames(out, env)
                    if name == "ffmpeg":
                        m.update(ffmpeg_progress(progress))
                    expected = args.fps * args.duration
                    secs = m["video_s"] or None
                    m.update({
                        "case": case, "recorder": name, "round": rnd, "expected_frames": expected,
                        "dropped": expected - m["frames"],
                        "cpu_per_s": m["cpu_s"] / secs if secs else None,
                        "x_cpu_per_s": m["x_cpu_s"] / secs if secs and m["x_cpu_s"] is not None else None,
                    })
                    m["total_cpu_per_s"] = (m["cpu_per_s"] + m["x_cpu_per_s"]
                                            if m["cpu_per_s"] is not None and m["x_cpu_per_s"] is not None else None)
                    log(f"  exit {m['exit']}, {m['frames']}/{expected} frames, "
                        f"{fmt(m['cpu_per_s'], '.3f')} CPU-s/s, peak {m['peak_rss_mb']:.0f} MB, "
                        f"X {fmt(m['x_cpu_per_s'], '.3f')} CPU-s/s")
                    if not args.keep and os.path.exists(out):
                        os.unlink(out)
                    results.append(m)
            content.stop()
            content = None
    finally:
        if content is not None:
            content.stop()
        if started_rig:
            run(["bash", os.path.join(ROOT, "scripts/rig.sh"), "stop"], timeout=60, env=env, check=False,
                capture=False)

    summary, ratios = {}, {}
    for case in cases:
        summary[case], ratios[case] = {}, {}
        for name in recorders:
            rs = [r for r in results if r["recorder"] == name and r["case"] == case]
            s = {k: mean([r[k] for r in rs]) for k in
                 ("cpu_per_s", "x_cpu_per_s", "total_cpu_per_s", "peak_rss_mb", "frames", "dropped",
                  "distinct_frames", "cpu_s", "wall_s", "file_mb")}
            s["worst_dropped"] = max((r["dropped"] for r in rs), default=None)
            s["failed_runs"] = sum(1 for r in rs if r["exit"] != 0 or r.get("error"))
            summary[case][name] = s
        if "ffmpeg" in summary[case]:
            for name in recorders:
                if name == "ffmpeg":
                    continue
                ratios[case][name] = {}
                for k in ("cpu_per_s", "x_cpu_per_s", "total_cpu_per_s", "peak_rss_mb"):
                    a, b = summary[case][name][k], summary[case]["ffmpeg"][k]
                    ratios[case][name][k] = a / b if a is not None and b else None

    report = {
        "config": {"rounds": args.rounds, "duration_s": args.duration, "fps": args.fps, "size": args.size,
                   "display": env.get("DISPLAY"), "recorders": recorders, "cases": cases, "cpus": os.cpu_count(),
                   "recordctl": args.recordctl if any(r.startswith("ours") for r in recorders) else None},
        "runs": results, "summary": summary, "ratios_ours_over_ffmpeg": ratios,
    }
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        print()
        return 0

    print(f"\n{args.size} at {args.fps} fps, cases {', '.join(cases)}, {args.duration} s per run, "
          f"{args.rounds} round(s), {os.cpu_count()} CPUs\n")
    hdr = (f"{'case':<13} {'run':<17} {'exit':>4} {'frames':>11} {'distinct':>8} {'CPU-s':>7} {'CPU-s/s':>8} "
           f"{'peak MB':>8} {'X CPU-s/s':>9} {'sum/s':>6} {'load':>5}")
    print(hdr)
    print("-" * len(hdr))
    for r in results:
        print(f"{r['case']:<13} {r['recorder'] + '-r' + str(r['round']):<17} {r['exit']:>4} "
              f"{str(r['frames']) + '/' + str(r['expected_frames']):>11} "
              f"{fmt(r['distinct_frames'], 'd'):>8} {r['cpu_s']:>7.2f} "
              f"{fmt(r['cpu_per_s'], '.3f'):>8} {r['peak_rss_mb']:>8.0f} {fmt(r['x_cpu_per_s'], '.3f'):>9} "
              f"{fmt(r['total_cpu_per_s'], '.3f'):>6} {r['load_1m_before']:>5.2f}"
              + (f"   ERROR: {r['error']}" if r.get("error") else ""))
    print()
    for case in cases:
        for name, s in summary[case].items():
            print(f"{case:<13} {name:<14} mean: {fmt(s['cpu_per_s'], '.3f')} CPU-s/s, peak {fmt(s['peak_rss_mb'], '.0f')} MB, "
                  f"X server {fmt(s['x_cpu_per_s'], '.3f')} CPU-s/s, recorder+X {fmt(s['total_cpu_per_s'], '.3f')} CPU-s/s, "
                  f"frames {fmt(s['frames'], '.1f')}, distinct {fmt(s['distinct_frames'], '.1f')}, failed runs {s['failed_runs']}")
    for case in cases:
        for name, rs in ratios[case].items():
            print(f"ratio {name}/ffmpeg, {case}: " + ", ".join(f"{k} {fmt(v, '.2f')}" for k, v in rs.items()))
    return 0 if all(s["failed_runs"] == 0 for c in summary.values() for s in c.values()) else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        log("interrupted")
        sys.exit(130)
