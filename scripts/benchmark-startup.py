#!/usr/bin/env python3
"""How long `recordctl` takes to start (the thin client): wall time of N runs of `recordctl --version`
(parse only: an unknown option, exit 64) and of `recordctl status` against a running service
of its own (a private XDG_RUNTIME_DIR), and the shared libraries the binary loads (ldd).

  python3 scripts/benchmark-startup.py [--runs 10] [RECORDCTL ...]   (default .build/release/recordctl)

Needs the rig's DISPLAY and PULSE_SERVER only for the service (source $RK_RIG_DIR/env).
Run it through `flock -o /tmp/rk-heavy.lock` and note the load: it is a timing."""
import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def timed(cmd, env, runs):
    samples = []
    for _ in range(runs):
        t0 = time.monotonic()
        subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
        samples.append((time.monotonic() - t0) * 1000)
    return samples


def summary(samples):
    xs = sorted(samples)
    return f"min {xs[0]:.1f}, median {statistics.median(xs):.1f}, max {xs[-1]:.1f} ms"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("recordctl", nargs="*", default=[".build/release/recordctl"])
    args = ap.parse_args()
    print(f"load (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for ctl in args.recordctl:
        libs = subprocess.run(["ldd", ctl], capture_output=True, text=True).stdout.strip().splitlines()
        runtime = tempfile.mkdtemp(prefix="rk-su-", dir="/tmp")
        os.chmod(runtime, 0o700)
        env = {**os.environ, "XDG_RUNTIME_DIR": runtime, "XDG_STATE_HOME": os.path.join(runtime, "state")}
        try:
            subprocess.run([ctl, "service", "start"], env=env, check=True, stdout=subprocess.DEVNULL, timeout=60)
            version = timed([ctl, "--version"], env, args.runs)
            status = timed([ctl, "status"], env, args.runs)
        finally:
            subprocess.run([ctl, "service", "stop"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
            shutil.rmtree(runtime, ignore_errors=True)
        print(f"{ctl}: {len(libs)} libraries (ldd)")
        print(f"  recordctl --version x{args.runs}: {summary(version)}")
        print(f"  recordctl status    x{args.runs}: {summary(status)}")


if __name__ == "__main__":
    main()
