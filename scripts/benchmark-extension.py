#!/usr/bin/env python3
"""RecordKit extension-delivery benchmark: raw 1080p frames to an out-of-process extension.

With moving content full screen (ffplay testsrc2, as scripts/benchmark.py), it records the whole
1920x1080 display at 30 fps for --duration seconds, no audio, into one handler that only touches
each frame (reads one byte per 4 KiB page), three ways:

  inprocess  the handler inside the recorder: the baseline
  lend       out of process, the frame lent in place (System V capture memory; the Swift SDK's default)
  copy       out of process, the frame copied into a memfd slot (RECORDKIT_EXTENSION_COPY=1: what an
             extension that does not attach System V segments gets)
  lend-nowork  lend, but the extension does nothing with the frame: the protocol's own cost

Each run is .build/release/rk-extension-bench (Sources/rk-extension-bench) with the fixture
extension Tests/Fixtures/extensions/rk-test-extension in mode=touch. Reported per mode: frames
captured, delivered to the handler, dropped (for the handler, and by capture), the host's CPU per
delivered frame spent delivering (copy + messages; waiting costs none), the extension process's
CPU per frame (all of it: SDK, touch, start-up), the recorder's CPU per second, and the CPU of one
memcpy of a frame, the yardstick "one frame copy".

  scripts/benchmark-extension.py                   # 30 s per mode, builds release first
  scripts/benchmark-extension.py --duration 10 --modes lend,copy --json

Python 3 standard library only; reuses scripts/benchmark.py's rig and content helpers. Every
subprocess is bounded.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("benchmark", os.path.join(ROOT, "scripts", "benchmark.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

MANIFEST = {
    "name": "touch", "version": "1.0.0", "entry": {"executable": "program"},
    "input": {"video": {"format": "raw", "pixelFormat": "bgr0"}},
    "setup": {"mode": {"type": "string", "default": "touch"}, "after": {"type": "int", "default": 1000000000},
              "delayMs": {"type": "int", "default": 0}, "log": {"type": "string", "default": ""}},
    "limits": {"memoryMB": 256, "callTimeoutMs": 1000},
}


def log(msg):
    print(f"benchmark-extension: {msg}", file=sys.stderr, flush=True)


def run_mode(mode, args, env, bin_dir, ext_dir):
    work = "none" if mode == "lend-nowork" else "touch"
    mode = "lend" if mode == "lend-nowork" else mode
    cmd = [os.path.join(bin_dir, "rk-extension-bench"), "--mode", mode, "--duration", str(args.duration),
           "--fps", str(args.fps), "--extension-dir", ext_dir, "--work", work]
    run_env = dict(env)
    run_env.pop("RECORDKIT_EXTENSION_COPY", None)
    if mode == "copy":
        run_env["RECORDKIT_EXTENSION_COPY"] = "1"
    log(f"{mode}: {' '.join(cmd)}")
    p = subprocess.run(cmd, env=run_env, stdin=subprocess.DEVNULL, capture_output=True, timeout=args.duration + 60)
    if p.returncode != 0:
        bench.die(f"{mode} failed ({p.returncode}): {p.stderr.decode(errors='replace')[-2000:]}")
    return json.loads(p.stdout.decode().strip().splitlines()[-1])


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=int, default=30, help="seconds per mode (default 30)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--size", default="1920x1080", help="screen size of the rig (default 1920x1080)")
    ap.add_argument("--modes", default="inprocess,lend,copy,lend-nowork",
                    help="comma list of inprocess, lend, copy, lend-nowork (lend, the extension doing nothing)")
    ap.add_argument("--no-build", action="store_true", help="use the existing release build")
    ap.add_argument("--scratch-path", default=None, help="SwiftPM --scratch-path of the release build")
    ap.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    args = ap.parse_args()

    scratch = ["--scratch-path", args.scratch_path] if args.scratch_path else []
    if not args.no_build:
        log("building release: rk-extension-bench, rk-test-extension")
        for product in ("rk-extension-bench", "rk-test-extension"):
            bench.run(["swift", "build", "-c", "release", *scratch, "--product", product], timeout=1800, capture=False)
    bin_dir = bench.run(["swift", "build", "-c", "release", *scratch, "--show-bin-path"], timeout=120).stdout.decode().strip()

    env, started_rig = bench.load_rig(args)
    logdir = tempfile.mkdtemp(prefix="rk-bench-ext-")
    ext_dir = os.path.join(logdir, "extensions")
    os.makedirs(os.path.join(ext_dir, "touch"))
    with open(os.path.join(ext_dir, "touch", "manifest.json"), "w") as f:
        json.dump(MANIFEST, f)
    os.symlink(os.path.join(bin_dir, "rk-test-extension"), os.path.join(ext_dir, "touch", "program"))

    load = os.getloadavg()[0]
    if load > 0.5:
        log(f"warning: load average {load:.2f} before starting; compare runs made on an idle machine")
    content = bench.start_content(env, args, logdir)
    results = []
    try:
        for mode in args.modes.split(","):
            results.append(run_mode(mode.strip(), args, env, bin_dir, ext_dir))
    finally:
        bench.stop_process(content, sig=bench.signal.SIGTERM)
        if started_rig:
            bench.run(["bash", os.path.join(ROOT, "scripts/rig.sh"), "stop"], timeout=60, env=env, check=False)

    for r in results:
        secs = r["seconds"]
        r["recorderCPUPerSecond"] = r["recorderCPUSeconds"] / secs
        if "hostDeliveryMsPerFrame" in r:
            r["deliveryVsFrameCopy"] = r["hostDeliveryMsPerFrame"] / r["memcpyFrameMs"]
    if args.json:
        print(json.dumps({"duration": args.duration, "fps": args.fps, "loadBefore": load, "results": results}, indent=2))
        return
    print(f"{args.size} raw bgr0 at {args.fps} fps for {args.duration} s, handler reads one byte per 4 KiB page; load before {load:.2f}")
    print(f"{'mode':<12} {'captured':>8} {'delivered':>9} {'dropped':>7} {'cap.drop':>8} {'host ms/f':>9} "
          f"{'ext ms/f':>8} {'rtt ms':>6} {'rec CPU/s':>9} {'memcpy ms':>9} {'host/copy':>9}")
    for r in results:
        name = r["mode"] + ("-nowork" if r.get("work") == "none" else "")
        print(f"{name:<12} {r['framesCaptured']:>8} {r['delivered']:>9} {r['droppedForHandler']:>7} {r['captureDropped']:>8} "
              f"{fmt(r.get('hostDeliveryMsPerFrame'), '.3f'):>9} {fmt(r.get('extensionMsPerFrame'), '.3f'):>8} "
              f"{fmt(r.get('meanRoundTripMs'), '.2f'):>6} {r['recorderCPUPerSecond']:>9.3f} {r['memcpyFrameMs']:>9.3f} "
              f"{fmt(r.get('deliveryVsFrameCopy'), '.3f'):>9}")
    for r in results:
        if r.get("error"):
            print(f"{r['mode']}: handler error: {r['error']}")


if __name__ == "__main__":
    main()
